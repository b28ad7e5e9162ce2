/**
 * The plugin host API: {@link dev.runkora.pluginhost.PluginHost} loads and selects providers;
 * {@link dev.runkora.pluginhost.ExtensionPoint} names the four SPIs; {@link
 * dev.runkora.pluginhost.PluginInfo} and {@link dev.runkora.pluginhost.PluginProblem} describe what
 * was found, for {@code kora info} and start-up messages.
 */
package dev.runkora.pluginhost;
