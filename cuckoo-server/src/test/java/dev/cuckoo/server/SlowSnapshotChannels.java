package dev.cuckoo.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * File channels for persistence in which every write to the snapshot's temporary file takes
 * {@code writeDelayMillis} longer (a slow disk, or a huge filter, without the bytes), and which
 * record when the active log is forced to disk. Thread-safe.
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
    return new Channel(FileChannel.open(path, options),
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
  private final class Channel extends FileChannel {
    private final FileChannel delegate;
    private final boolean snapshot;
    private final boolean log;

    Channel(FileChannel delegate, boolean snapshot, boolean log) {
      this.delegate = delegate;
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

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return delegate.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return delegate.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return delegate.read(dst, position);
    }

    @Override
    public long position() throws IOException {
      return delegate.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      delegate.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return delegate.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      delegate.truncate(size);
      return this;
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target)
        throws IOException {
      return delegate.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count)
        throws IOException {
      delay();
      return delegate.transferFrom(src, position, count);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return delegate.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return delegate.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return delegate.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
      delegate.close();
    }
  }
}
