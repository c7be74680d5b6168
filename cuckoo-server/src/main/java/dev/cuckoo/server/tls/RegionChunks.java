package dev.cuckoo.server.tls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.handler.stream.ChunkedInput;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * Turns a {@link FileRegion} written to a TLS connection (a replica's snapshot transfer, sent with
 * zero copy on plaintext connections) into chunks of bytes that the TLS handler can encrypt; a
 * {@link ChunkedWriteHandler}, put before it at the first transfer, sends them as the connection
 * drains, so the file is never held in memory whole.
 */
final class RegionChunks extends ChannelOutboundHandlerAdapter {
  private static final int CHUNK_BYTES = 64 * 1024;

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof FileRegion region) {
      if (ctx.pipeline().get(ChunkedWriteHandler.class) == null) {
        // added at the first transfer only: it queues every write, which plain replies need not
        ctx.pipeline().addBefore(ctx.name(), null, new ChunkedWriteHandler());
      }
      ctx.write(new RegionInput(region), promise);
    } else {
      ctx.write(msg, promise);
    }
  }

  /** A file region read in chunks. */
  private static final class RegionInput implements ChunkedInput<ByteBuf> {
    private final FileRegion region;
    private long offset;

    RegionInput(FileRegion region) {
      this.region = region;
    }

    @Override
    public boolean isEndOfInput() {
      return offset >= region.count();
    }

    @Override
    public void close() {
      region.release();
    }

    @Override
    @Deprecated
    public ByteBuf readChunk(ChannelHandlerContext ctx) throws IOException {
      return readChunk(ctx.alloc());
    }

    @Override
    public ByteBuf readChunk(ByteBufAllocator allocator) throws IOException {
      if (isEndOfInput()) {
        return null;
      }
      int size = (int) Math.min(CHUNK_BYTES, region.count() - offset);
      ByteBuf chunk = allocator.buffer(size);
      boolean done = false;
      try {
        while (chunk.isWritable()) {
          long moved = region.transferTo(new Into(chunk), offset);
          if (moved <= 0) {
            throw new IOException(
                "the file of a transfer ended at byte " + offset + " of " + region.count());
          }
          offset += moved;
        }
        done = true;
        return chunk;
      } finally {
        if (!done) {
          chunk.release();
        }
      }
    }

    @Override
    public long length() {
      return region.count();
    }

    @Override
    public long progress() {
      return offset;
    }
  }

  /** A channel that writes into a buffer as far as it has room. */
  private static final class Into implements WritableByteChannel {
    private final ByteBuf target;

    Into(ByteBuf target) {
      this.target = target;
    }

    @Override
    public int write(ByteBuffer source) {
      int length = Math.min(source.remaining(), target.writableBytes());
      ByteBuffer slice = source.slice();
      slice.limit(length);
      target.writeBytes(slice);
      source.position(source.position() + length);
      return length;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }
}
