package dev.cuckoo.server.persist;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/**
 * Opens the files that persistence writes: the append-only logs and the snapshot. The seam through
 * which fault tests hand the server channels that fail with ENOSPC, EIO or short writes at chosen
 * calls.
 */
@FunctionalInterface
public interface FileChannels {
  /** The real file system. */
  FileChannels DEFAULT = FileChannel::open;

  /** Opens a file channel, as {@link FileChannel#open(Path, OpenOption...)} does. */
  FileChannel open(Path path, OpenOption... options) throws IOException;
}
