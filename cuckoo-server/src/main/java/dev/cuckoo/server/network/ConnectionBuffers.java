package dev.cuckoo.server.network;

import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.protocol.RespDecoder;
import dev.cuckoo.server.session.ClientBuffers;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;

/**
 * A client connection's buffers, measured where Netty and the decoder keep them (read on the
 * connection's event loop):
 *
 * <ul>
 *   <li>{@code qbuf}: the decoder's unparsed bytes (its cumulation buffer) and the part of a bulk
 *       string still arriving, plus the requests decoded and held back while the connection waits
 *       (a blocked command); {@code qbuf-free}: the room left in the cumulation buffer and in the
 *       bulk string's array;
 *   <li>{@code argv-mem}: the arguments of the command running, plus those already whole of a
 *       request still arriving;
 *   <li>{@code obl}: reply bytes in the connection's {@link Reply} buffer, not yet handed to the
 *       channel;
 *   <li>{@code oll} and {@code omem}: the channel's {@link ChannelOutboundBuffer} — its flushed
 *       entries not yet written ({@code size()}) and every byte written to the channel and not yet
 *       to the socket ({@code totalPendingWriteBytes()}, which is what makes the channel unwritable
 *       past its high water mark). With TLS these are the encrypted bytes; what the TLS handler
 *       holds before encrypting is not counted.
 * </ul>
 */
final class ConnectionBuffers extends ClientBuffers {
  private final Channel channel;
  private final RespDecoder decoder;
  private final Reply reply;
  private byte[][] runningArgs;
  private long heldRequestBytes;

  /**
   * Creates the measure of a connection.
   *
   * @param channel the connection
   * @param decoder its request decoder, or null if it has none
   * @param reply its reply buffer
   */
  ConnectionBuffers(Channel channel, RespDecoder decoder, Reply reply) {
    this.channel = channel;
    this.decoder = decoder;
    this.reply = reply;
  }

  /** Returns the bytes of a request's arguments. */
  static long argumentBytes(byte[][] args) {
    long bytes = 0;
    for (byte[] arg : args) {
      bytes += arg.length;
    }
    return bytes;
  }

  /**
   * Notes the arguments of the command starting to run (null: none runs now). Their bytes are added
   * up only when asked for (CLIENT LIST, the buffer limits), not for every request.
   */
  void running(byte[][] args) {
    runningArgs = args;
  }

  /** Adds to (or with a negative count, takes from) the bytes of requests held back. */
  void held(long bytes) {
    heldRequestBytes += bytes;
  }

  @Override
  public long queryBytes() {
    return (decoder == null ? 0 : decoder.heldBytes()) + heldRequestBytes;
  }

  @Override
  public long queryFreeBytes() {
    return decoder == null ? 0 : decoder.freeBytes();
  }

  @Override
  public long argumentBytes() {
    long running = runningArgs == null ? 0 : argumentBytes(runningArgs);
    return running + (decoder == null ? 0 : decoder.partialArgumentBytes());
  }

  @Override
  public long replyBytes() {
    return reply.pendingBytes();
  }

  @Override
  public long outputBlocks() {
    ChannelOutboundBuffer queued = channel.unsafe().outboundBuffer();
    return queued == null ? 0 : queued.size();
  }

  @Override
  public long outputBytes() {
    ChannelOutboundBuffer queued = channel.unsafe().outboundBuffer();
    return queued == null ? 0 : queued.totalPendingWriteBytes();
  }

  @Override
  public long allocatedBytes() {
    return (decoder == null ? 0 : decoder.allocatedBytes()) + heldRequestBytes + replyBytes();
  }

  @Override
  public byte[] queryHead(int max) {
    return decoder == null ? new byte[0] : decoder.heldHead(max);
  }
}
