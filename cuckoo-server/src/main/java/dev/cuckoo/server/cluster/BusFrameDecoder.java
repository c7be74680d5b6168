package dev.cuckoo.server.cluster;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.lang.System.Logger.Level;
import java.util.List;

/**
 * Cuts the bus byte stream into messages: reads the signature and total length first and refuses a
 * bad one before allocating anything, then waits for the whole message and decodes it. A message
 * that does not decode is logged and closes the link, as Redis closes a link that sends a bad
 * header.
 */
final class BusFrameDecoder extends ByteToMessageDecoder {
  private static final System.Logger LOGGER = System.getLogger(BusFrameDecoder.class.getName());

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (in.readableBytes() < 8) {
      return;
    }
    try {
      byte[] first = new byte[8];
      in.getBytes(in.readerIndex(), first);
      int length = MessageCodec.frameLength(first);
      if (in.readableBytes() < length) {
        return;
      }
      byte[] bytes = new byte[length];
      in.readBytes(bytes);
      out.add(MessageCodec.decode(bytes));
    } catch (BadClusterMessage e) {
      LOGGER.log(
          Level.WARNING,
          "Bad message received from cluster bus peer {0}, closing the link: {1}",
          ctx.channel().remoteAddress(),
          e.getMessage());
      in.skipBytes(in.readableBytes());
      ctx.close();
    }
  }
}
