/**
 * JSON for kora's host modules: {@link dev.runkora.common.json.JsonText} parses and prints, {@link
 * dev.runkora.common.json.JsonFields} reads fields with types and strictness, {@link
 * dev.runkora.common.json.Rfc3339} formats times.
 */
package dev.runkora.common.json;
