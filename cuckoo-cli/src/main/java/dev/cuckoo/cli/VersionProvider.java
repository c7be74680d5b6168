package dev.cuckoo.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** Supplies {@code cuckoo --version}: the project version (from the build) and the Java runtime. */
final class VersionProvider implements IVersionProvider {
  @Override
  public String[] getVersion() throws IOException {
    return new String[] {
      "cuckoo " + version(),
      "Java "
          + System.getProperty("java.version")
          + " ("
          + System.getProperty("java.vm.name")
          + ", "
          + System.getProperty("java.vendor")
          + ")"
    };
  }

  /**
   * Returns the project version recorded at build time.
   *
   * @return the version, or {@code "unknown"} if the build did not record one
   * @throws IOException if the version resource cannot be read
   */
  static String version() throws IOException {
    Properties properties = new Properties();
    try (InputStream in = VersionProvider.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        return "unknown";
      }
      properties.load(in);
    }
    return properties.getProperty("version", "unknown");
  }
}
