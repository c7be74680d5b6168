package dev.cuckoo.server;

import dev.cuckoo.server.persist.FileChannels;
import dev.cuckoo.server.persist.Persistence;
import dev.cuckoo.server.persist.SnapshotFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/**
 * File channels for persistence that hold a snapshot in the middle: once {@code holdAfterBytes}
 * bytes have been written to the snapshot's temporary file, its next write blocks until {@link
 * #release} (a disk that stalls while a big filter is written), so that what goes on meanwhile can
 * be observed. Other files are not held. Thread-safe.
 */
final class HeldSnapshotChannels implements FileChannels {
  private final long holdAfterBytes;
  private long written;
  private boolean released;
  private boolean holding;

  HeldSnapshotChannels(long holdAfterBytes) {
    this.holdAfterBytes = holdAfterBytes;
  }

  @Override
  public FileChannel open(Path path, OpenOption... options) throws IOException {
    FileChannel channel = FileChannel.open(path, options);
    if (!path.getFileName()
        .toString()
        .equals(SnapshotFile.tempOf(Path.of(Persistence.SNAPSHOT)).toString())) {
      return channel;
    }
    return new ForwardingFileChannel(channel) {
      @Override
      public int write(ByteBuffer src) throws IOException {
        awaitTurn(src.remaining());
        return super.write(src);
      }

      @Override
      public int write(ByteBuffer src, long position) throws IOException {
        awaitTurn(src.remaining());
        return super.write(src, position);
      }

      @Override
      public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long bytes = 0;
        for (int i = offset; i < offset + length; i++) {
          bytes += srcs[i].remaining();
        }
        awaitTurn(bytes);
        return super.write(srcs, offset, length);
      }
    };
  }

  /** Lets the held write and every later one go on. */
  synchronized void release() {
    released = true;
    notifyAll();
  }

  /**
   * Waits until a write to the snapshot is being held, up to {@code millis}.
   *
   * @throws AssertionError if none is within that time
   */
  synchronized void awaitHeld(long millis) throws InterruptedException {
    long deadline = System.currentTimeMillis() + millis;
    while (!holding) {
      long left = deadline - System.currentTimeMillis();
      if (left <= 0) {
        throw new AssertionError("no snapshot write was held within " + millis + " ms");
      }
      wait(left);
    }
  }

  private synchronized void awaitTurn(long bytes) throws IOException {
    try {
      while (written >= holdAfterBytes && !released) {
        holding = true;
        notifyAll();
        wait();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while the snapshot write was held", e);
    }
    written += bytes;
  }
}
