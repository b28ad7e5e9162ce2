/**
 * What kora's host modules share and plugins do not see: reading and writing JSON on top of
 * jakarta.json (Parsson), RFC 3339 times, and crash-safe writes of small state files.
 *
 * <p>The packages are internal to kora: they are exported only to kora's own host modules.
 */
module dev.runkora.common {
  requires transitive jakarta.json;

  exports dev.runkora.common.json to
      dev.runkora.sandboxd,
      dev.runkora.api,
      dev.runkora.cli,
      dev.runkora.vk,
      dev.runkora.operator;
  exports dev.runkora.common.files to
      dev.runkora.sandboxd,
      dev.runkora.cli,
      dev.runkora.vk,
      dev.runkora.operator;
}
