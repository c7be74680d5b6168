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

/**
 * Fault injection for persistence: file channels that fail writes or fsyncs at chosen calls, the
 * way a full or failing disk does — ENOSPC, EIO, or a short write (part of the bytes land, then
 * ENOSPC).
 *
 * <p>Every write and force call of every channel opened through this object is numbered in one
 * sequence; {@link #failWrite} and {@link #failForce} arm a fault for a call number, {@link
 * #diskFull} makes every write fail until {@link #heal}. Thread-safe.
 */
final class FaultyChannels implements FileChannels {
  /** The kinds of failure. */
  enum Fault {
    /** No space left on device; nothing written. */
    ENOSPC,
    /** Input/output error; nothing written. */
    EIO,
    /** Half of the bytes are written, then ENOSPC. */
    SHORT_WRITE
  }

  private long writes;
  private long forces;
  private long failWriteAt = -1;
  private long failForceAt = -1;
  private Fault writeFault = Fault.ENOSPC;
  private boolean full;
  private boolean forcesFail;
  private long injected;

  @Override
  public FileChannel open(Path path, OpenOption... options) throws IOException {
    return new Channel(FileChannel.open(path, options));
  }

  /** Makes write call number {@code call} (counting from now, 0 = the next) fail. */
  synchronized void failWrite(long call, Fault fault) {
    failWriteAt = writes + call;
    writeFault = fault;
  }

  /** Makes force call number {@code call} (counting from now, 0 = the next) fail with EIO. */
  synchronized void failForce(long call) {
    failForceAt = forces + call;
  }

  /** Makes every write fail with ENOSPC (and every force with EIO if {@code forcesToo}). */
  synchronized void diskFull(boolean forcesToo) {
    full = true;
    forcesFail = forcesToo;
  }

  /** Ends every armed and lasting fault. */
  synchronized void heal() {
    full = false;
    forcesFail = false;
    failWriteAt = -1;
    failForceAt = -1;
  }

  /** Returns the number of faults injected so far. */
  synchronized long injected() {
    return injected;
  }

  /** Returns the number of write calls so far. */
  synchronized long writes() {
    return writes;
  }

  /** Returns null to let a write through, or the fault to inject. */
  private synchronized Fault beforeWrite() {
    long call = writes++;
    if (full) {
      injected++;
      return Fault.ENOSPC;
    }
    if (call == failWriteAt) {
      injected++;
      return writeFault;
    }
    return null;
  }

  private synchronized boolean forceFails() {
    long call = forces++;
    if (forcesFail || call == failForceAt) {
      injected++;
      return true;
    }
    return false;
  }

  private static IOException error(Fault fault) {
    return new IOException(fault == Fault.EIO ? "Input/output error" : "No space left on device");
  }

  /** A channel that asks before each write and force. */
  private final class Channel extends FileChannel {
    private final FileChannel delegate;

    Channel(FileChannel delegate) {
      this.delegate = delegate;
    }

    private int write(ByteBuffer src, long position, boolean positional) throws IOException {
      Fault fault = beforeWrite();
      if (fault == null) {
        return positional ? delegate.write(src, position) : delegate.write(src);
      }
      if (fault == Fault.SHORT_WRITE && src.remaining() > 1) {
        ByteBuffer half = src.duplicate();
        half.limit(half.position() + src.remaining() / 2);
        int n = positional ? delegate.write(half, position) : delegate.write(half);
        src.position(src.position() + n);
        // the next write (the rest) fails as a full disk would
        synchronized (FaultyChannels.this) {
          failWriteAt = writes;
          writeFault = Fault.ENOSPC;
        }
        return n;
      }
      throw error(fault);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      return write(src, -1, false);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      return write(src, position, true);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      long total = 0;
      for (int i = offset; i < offset + length; i++) {
        while (srcs[i].hasRemaining()) {
          total += write(srcs[i]);
        }
      }
      return total;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      if (forceFails()) {
        throw error(Fault.EIO);
      }
      delegate.force(metaData);
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
      throw new IOException("transferFrom is not used by persistence");
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      throw new IOException("map is not used by persistence");
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
