package dev.cuckoo.server;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** Durable file replacement: rename a fully written, fsynced temp file, then fsync the folder. */
final class FileSync {
  private FileSync() {}

  /** Atomically renames {@code temp} to {@code target} and forces the directory entry to disk. */
  static void replace(Path temp, Path target) throws IOException {
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    Path dir = target.toAbsolutePath().getParent();
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // some file systems cannot open a directory; the rename itself is still atomic there
    }
  }
}
