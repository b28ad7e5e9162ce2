/**
 * The bubblewrap runtime. {@link dev.runkora.plugin.runtime.bwrap.BwrapRuntimeProvider} is the
 * entry point; everything else is internal.
 */
package dev.runkora.plugin.runtime.bwrap;
