package dev.runkora.api;

import jakarta.json.JsonObject;

/**
 * One entry of a directory listing from kora's files extension ({@code GET
 * /v1/sandboxes/{id}/files?path=} on a directory).
 *
 * @param name the entry's name
 * @param type {@code file}, {@code dir}, {@code symlink} or {@code other}
 * @param size the size in bytes
 */
public record FileEntry(String name, String type, long size) {

  /** Reads an entry. */
  public static FileEntry fromJson(JsonObject o) {
    return new FileEntry(
        Wire.requiredString(o, "name"), Wire.string(o, "type"), Wire.number(o, "size"));
  }

  /** The entry object. */
  public JsonObject toJson() {
    return Wire.object().add("name", name).add("type", type).add("size", size).build();
  }
}
