package dev.cuckoo.server.persist;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** Durable file replacement: rename a fully written, fsynced temp file, then fsync the folder. */
public final class FileSync {
  private FileSync() {}

  /** Atomically renames {@code temp} to {@code target} and forces the directory entry to disk. */
  public static void replace(Path temp, Path target) throws IOException {
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    syncDirectory(target);
  }

  /** Atomically renames {@code source} to {@code target} and forces the directory to disk. */
  static void move(Path source, Path target) throws IOException {
    Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
    syncDirectory(target);
  }

  /** Forces the directory holding {@code file} to disk (where the file system allows it). */
  static void syncDirectory(Path file) {
    Path dir = file.toAbsolutePath().getParent();
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // some file systems cannot open a directory; the rename itself is still atomic there
    }
  }
}
