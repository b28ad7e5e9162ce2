/** Private, crash-safe files: {@link dev.runkora.common.files.PrivateFiles}. */
package dev.runkora.common.files;
