package dev.cuckoo.server.persist;

import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.config.Parameters;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * The names of the files persistence keeps in the data directory: the snapshot ({@code dbfilename},
 * default {@value Persistence#SNAPSHOT}), the active log ({@code appendfilename}, default {@value
 * Persistence#LOG}) and the retired logs, the active log's name followed by a dot and the
 * generation it held.
 *
 * @param dir the data directory
 * @param snapshotName the snapshot's file name
 * @param logName the active log's file name, the base of the retired logs' names
 */
public record DataFiles(Path dir, String snapshotName, String logName) {
  /** The default names in {@code dir}. */
  public static DataFiles in(Path dir) {
    return new DataFiles(dir, Persistence.SNAPSHOT, Persistence.LOG);
  }

  /** The directory and names the settings give (dir, dbfilename, appendfilename). */
  public static DataFiles of(Config config) {
    return new DataFiles(
        config.get(Parameters.DIR),
        config.get(Parameters.DBFILENAME),
        config.get(Parameters.APPENDFILENAME));
  }

  /**
   * Returns what is wrong with a file name given for {@code parameter} (dbfilename,
   * appendfilename), in Redis's words, or null if it may be used: not empty, not a path.
   */
  public static String checkName(String parameter, String name) {
    if (name.isEmpty()) {
      return parameter + " can't be empty";
    }
    if (name.contains("/") || name.contains("\\") || name.equals(".") || name.equals("..")) {
      return parameter + " can't be a path, just a filename";
    }
    return null;
  }

  /** Returns the snapshot's path. */
  public Path snapshot() {
    return dir.resolve(snapshotName);
  }

  /** Returns the active log's path. */
  public Path log() {
    return dir.resolve(logName);
  }

  /** Returns the path of the retired log of {@code generation}. */
  Path retired(long generation) {
    return dir.resolve(logName + "." + generation);
  }

  /** Returns a sibling of the active log: its name followed by {@code suffix}. */
  Path logSibling(String suffix) {
    return dir.resolve(logName + suffix);
  }

  /** Returns true if the active log exists. */
  boolean hasLog() {
    return Files.exists(log());
  }

  /**
   * Returns the retired logs in the directory by the number their name ends with (what follows the
   * log's name and a dot: 1 to 18 digits), in ascending order.
   */
  Map<Long, Path> retiredLogs() throws IOException {
    TreeMap<Long, Path> retired = new TreeMap<>();
    String prefix = logName + ".";
    try (DirectoryStream<Path> entries =
        Files.newDirectoryStream(dir, path -> path.getFileName().toString().startsWith(prefix))) {
      for (Path path : entries) {
        String suffix = path.getFileName().toString().substring(prefix.length());
        if (!suffix.isEmpty()
            && suffix.length() <= 18
            && suffix.chars().allMatch(Character::isDigit)) {
          retired.put(Long.parseLong(suffix), path);
        }
      }
    }
    return retired;
  }

  /** Deletes the retired logs whose number is below {@code generation}. */
  void deleteRetiredBefore(long generation) throws IOException {
    for (Map.Entry<Long, Path> entry : retiredLogs().entrySet()) {
      if (entry.getKey() < generation) {
        Files.deleteIfExists(entry.getValue());
      }
    }
  }
}
