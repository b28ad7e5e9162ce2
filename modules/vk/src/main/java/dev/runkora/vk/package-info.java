/**
 * vk-sandbox: {@link dev.runkora.vk.Main} parses the flags and environment of seed 001 into a
 * {@link dev.runkora.vk.VkConfig} and runs a {@link dev.runkora.vk.VkSandbox}.
 */
package dev.runkora.vk;
