package dev.runkora.plugin.storage.local;

import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.storage.StorageCapability;
import dev.runkora.spi.storage.StorageClass;
import dev.runkora.spi.storage.StorageContext;
import dev.runkora.spi.storage.StorageProvider;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * Provides the {@code local} storage class.
 *
 * <p>Settings: {@code root} (the directory that holds the workspaces; default: the plugin's data
 * directory) and {@code enforce} ({@code none}, the default, or {@code loop}).
 *
 * <p>It does not declare {@link StorageCapability#SIZE_ENFORCED}, because the default mode does not
 * enforce; a class created with {@code enforce=loop} reports it in its description and on each
 * workspace.
 */
public final class LocalStorageProvider implements StorageProvider {

  static final String NAME = "local";

  /** Creates the provider; ServiceLoader calls this. */
  public LocalStorageProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Set<StorageCapability> capabilities() {
    return EnumSet.of(
        StorageCapability.NODE_LOCAL, StorageCapability.USAGE, StorageCapability.EXPANSION);
  }

  @Override
  public String description() {
    return "Workspaces as directories on this node's disk; sizes enforced with enforce=loop.";
  }

  @Override
  public StorageClass create(PluginConfig config, StorageContext context) {
    config.requireKnownKeys(NAME, Set.of("root", "enforce"));
    var root = config.path("root", context.dataDirectory());
    var enforce = config.string("enforce", "none").trim().toLowerCase(Locale.ROOT);
    var mode =
        switch (enforce) {
          case "none" -> Enforcement.NONE;
          case "loop" -> Enforcement.LOOP;
          default ->
              throw KoraException.invalidArgument(
                  "setting 'enforce' of storage plugin 'local' must be none or loop, not '%s'",
                  enforce);
        };
    return LocalStorageClass.open(root, mode, context.logger());
  }
}
