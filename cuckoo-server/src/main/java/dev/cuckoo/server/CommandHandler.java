package dev.cuckoo.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import java.io.IOException;
import java.lang.System.Logger.Level;

/**
 * Runs the decoded requests of one connection and writes their replies.
 *
 * <p>Requests are executed in arrival order on the connection's network thread; their replies
 * are collected in one buffer and written when the decoder has no more complete requests
 * (channelReadComplete), so a pipeline of requests costs one socket write. Before replies that
 * acknowledge writes go out, the write log is committed (written, and with appendfsync always
 * forced to disk). When the socket stops being writable the connection stops reading until it
 * drains, so a client that does not read its replies cannot grow the server's memory.
 */
final class CommandHandler extends ChannelInboundHandlerAdapter {
  private static final System.Logger LOGGER = System.getLogger(CommandHandler.class.getName());
  private static final int EARLY_FLUSH_BYTES = 256 * 1024;

  private final ServerContext context;
  private final Commands commands;
  private Session session;
  private boolean counted;

  CommandHandler(ServerContext context, Commands commands) {
    this.context = context;
    this.commands = commands;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    context.totalConnections().incrementAndGet();
    session = new Session(context.nextClientId(), new Reply(ctx.alloc()),
        Authentication.of(ctx.channel()), false);
    counted = true;
    if (context.connectedClients().incrementAndGet() > context.config().maxClients()) {
      session.reply().error("ERR max number of clients reached");
      session.requestClose();
      writeReplies(ctx);
      return;
    }
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (session.closeRequested()) {
      return;
    }
    if (msg instanceof byte[][]) {
      commands.execute(session, (byte[][]) msg);
    } else if (msg instanceof RespDecoder.ProtocolError) {
      session.reply().error(((RespDecoder.ProtocolError) msg).message());
      session.requestClose();
    }
    if (session.reply().pendingBytes() >= EARLY_FLUSH_BYTES) {
      writeReplies(ctx);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    writeReplies(ctx);
  }

  private void writeReplies(ChannelHandlerContext ctx) {
    if (session.takeLogged()) {
      Persistence persistence = context.persistence();
      if (persistence != null) {
        try {
          persistence.commit();
        } catch (RuntimeException e) {
          LOGGER.log(Level.ERROR, "append-only log commit failed; closing the client", e);
          session.reply().discard();
          ctx.close();
          return;
        }
      }
    }
    ByteBuf out = session.reply().take();
    if (session.closeRequested()) {
      if (out != null) {
        ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
      } else {
        ctx.close();
      }
      return;
    }
    if (out != null) {
      ctx.writeAndFlush(out, ctx.voidPromise());
      if (!ctx.channel().isWritable()) {
        ctx.channel().config().setAutoRead(false);
      }
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) {
      ctx.channel().config().setAutoRead(true);
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (counted) {
      context.connectedClients().decrementAndGet();
      counted = false;
    }
    if (session != null) {
      session.reply().discard();
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof IdleStateEvent) {
      ctx.close();
    } else {
      ctx.fireUserEventTriggered(event);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (!(cause instanceof IOException)) {
      LOGGER.log(Level.WARNING, "closing client after an error", cause);
    }
    ctx.close();
  }
}
