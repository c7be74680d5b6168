package dev.cuckoo.server;

import dev.cuckoo.server.persist.FileChannels;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
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
  private final class Channel extends ForwardingFileChannel {

    Channel(FileChannel delegate) {
      super(delegate);
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
  }
}
