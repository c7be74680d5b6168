package dev.cuckoo.server;

import dev.cuckoo.server.persist.FileChannels;
import dev.cuckoo.server.persist.Persistence;
import dev.cuckoo.server.persist.SnapshotFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * File channels for persistence in which every write to the snapshot's temporary file takes {@code
 * writeDelayMillis} longer (a slow disk, or a huge filter, without the bytes), and which record
 * when the active log is forced to disk. Thread-safe.
 */
final class SlowSnapshotChannels implements FileChannels {
  private final long writeDelayMillis;
  private final List<Long> logForceNanos = new ArrayList<>();

  SlowSnapshotChannels(long writeDelayMillis) {
    this.writeDelayMillis = writeDelayMillis;
  }

  @Override
  public FileChannel open(Path path, OpenOption... options) throws IOException {
    String name = path.getFileName().toString();
    return new Channel(
        FileChannel.open(path, options),
        name.equals(SnapshotFile.tempOf(Path.of(Persistence.SNAPSHOT)).toString()),
        name.equals(Persistence.LOG));
  }

  /** Returns the System.nanoTime of every force of the active log so far. */
  synchronized List<Long> logForceNanos() {
    return new ArrayList<>(logForceNanos);
  }

  private synchronized void logForced() {
    logForceNanos.add(System.nanoTime());
  }

  /** A delegating channel that delays snapshot writes and records log forces. */
  private final class Channel extends ForwardingFileChannel {
    private final boolean snapshot;
    private final boolean log;

    Channel(FileChannel delegate, boolean snapshot, boolean log) {
      super(delegate);
      this.snapshot = snapshot;
      this.log = log;
    }

    private void delay() throws IOException {
      if (snapshot) {
        try {
          Thread.sleep(writeDelayMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
      }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      delay();
      return delegate.write(src);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      delay();
      return delegate.write(src, position);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      delay();
      return delegate.write(srcs, offset, length);
    }

    @Override
    public void force(boolean metaData) throws IOException {
      delegate.force(metaData);
      if (log) {
        logForced();
      }
    }
  }
}
