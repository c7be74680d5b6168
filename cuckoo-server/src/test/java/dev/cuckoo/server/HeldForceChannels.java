package dev.cuckoo.server;

import dev.cuckoo.server.persist.FileChannels;
import dev.cuckoo.server.persist.Persistence;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/**
 * File channels for persistence whose forces of the active log can be held: between {@link #hold}
 * and {@link #release} a force of the log blocks (a disk whose fsync hangs), so that what waits for
 * it can be observed. Writes are not held. Thread-safe.
 */
final class HeldForceChannels implements FileChannels {
  private boolean held;
  private int waiting;

  @Override
  public FileChannel open(Path path, OpenOption... options) throws IOException {
    FileChannel channel = FileChannel.open(path, options);
    if (!path.getFileName().toString().equals(Persistence.LOG)) {
      return channel;
    }
    return new ForwardingFileChannel(channel) {
      @Override
      public void force(boolean metaData) throws IOException {
        awaitRelease();
        super.force(metaData);
      }
    };
  }

  /** Makes forces of the log block from now on until {@link #release}. */
  synchronized void hold() {
    held = true;
  }

  /** Lets held and later forces of the log go on. */
  synchronized void release() {
    held = false;
    notifyAll();
  }

  /**
   * Waits until a force of the log is being held, up to {@code millis}.
   *
   * @throws AssertionError if none is within that time
   */
  synchronized void awaitHeldForce(long millis) throws InterruptedException {
    long deadline = System.currentTimeMillis() + millis;
    while (waiting == 0) {
      long left = deadline - System.currentTimeMillis();
      if (left <= 0) {
        throw new AssertionError("no force of the log was held within " + millis + " ms");
      }
      wait(left);
    }
  }

  private synchronized void awaitRelease() throws IOException {
    waiting++;
    notifyAll();
    try {
      while (held) {
        wait();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while the force was held", e);
    } finally {
      waiting--;
    }
  }
}
