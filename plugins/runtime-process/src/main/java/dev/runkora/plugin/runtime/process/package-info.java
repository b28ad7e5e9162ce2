/**
 * The process runtime. {@link dev.runkora.plugin.runtime.process.ProcessRuntimeProvider} is the
 * entry point; everything else is internal.
 */
package dev.runkora.plugin.runtime.process;
