package dev.runkora.vk;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The build's version, revision and time, for {@code --version}. */
final class Version {
  private Version() {}

  static String line() {
    Properties p = new Properties();
    try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // Reported as unknown below.
    }
    String rev = System.getProperty("kora.revision", p.getProperty("revision", "unknown"));
    return "vk-sandbox "
        + p.getProperty("version", "unknown")
        + " (rev="
        + rev
        + " built="
        + p.getProperty("built", "unknown")
        + ")";
  }

  static String version() {
    Properties p = new Properties();
    try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      return "unknown";
    }
    return p.getProperty("version", "unknown");
  }
}
