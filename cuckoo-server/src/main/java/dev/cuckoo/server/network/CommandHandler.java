package dev.cuckoo.server.network;

import dev.cuckoo.server.command.Commands;
import dev.cuckoo.server.command.ServerContext;
import dev.cuckoo.server.command.WritePath;
import dev.cuckoo.server.keyspace.HeapGuard;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.protocol.RespDecoder;
import dev.cuckoo.server.pubsub.Subscriber;
import dev.cuckoo.server.session.Session;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.FastThreadLocal;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Runs the decoded requests of one connection and writes their replies.
 *
 * <p>Requests are executed in arrival order on the connection's network thread; their replies are
 * collected in one buffer and written when the decoder has no more complete requests
 * (channelReadComplete), so a pipeline of requests costs one socket write. Before replies that
 * acknowledge writes go out, the write path has their log records written (and with appendfsync
 * always forced to disk). When the socket stops being writable the connection stops reading until
 * it drains, so a client that does not read its replies cannot grow the server's memory. A command
 * whose work runs elsewhere (SAVE) defers its reply, and a command that must wait (a move during a
 * snapshot, a paused client) asks to run again later: either way the connection stops reading and
 * queues the requests already decoded until then, so replies stay in request order and the event
 * loop goes on serving other connections meanwhile.
 */
public final class CommandHandler extends ChannelInboundHandlerAdapter {
  private static final System.Logger LOGGER = System.getLogger(CommandHandler.class.getName());
  private static final int EARLY_FLUSH_BYTES = 256 * 1024;

  private final ServerContext context;
  private final Commands commands;
  private final WritePath writePath;
  private Session session;
  private ConnectionBuffers buffers;
  private SubscriberOutbox outbox;
  // the connection's decoder, which counts the bytes received
  private RespDecoder decoder;
  private boolean counted;

  /** Per write command of the current batch: reply start, reply end (as longs) and last lsn. */
  private long[] writes = new long[24];

  private int writeCount;
  private boolean waiting;
  private final ArrayDeque<Object> queued = new ArrayDeque<>();

  public CommandHandler(ServerContext context, Commands commands) {
    this.context = context;
    this.commands = commands;
    this.writePath = commands.writePath();
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    context.totalConnections().incrementAndGet();
    session =
        new Session(
            context.nextClientId(),
            new Reply(ctx.alloc()),
            Authentication.of(ctx.channel()),
            false);
    session.reply().countErrorsIn(context.errorStats());
    session.user(context.acl().defaultUser());
    buffers =
        new ConnectionBuffers(
            ctx.channel(), ctx.pipeline().get(RespDecoder.class), session.reply());
    session.buffers(buffers);
    outbox =
        new SubscriberOutbox(
            ctx.channel(),
            session,
            () -> context.bufferLimits().outputExceeded(session, true),
            () -> {
              if (!waiting) {
                writeReplies(ctx);
              }
            });
    session.subscriber(new Subscriber(outbox));
    session.allowRetries();
    counted = true;
    if (context.connectedClients().incrementAndGet() > context.maxClients()) {
      session.reply().error("ERR max number of clients reached");
      session.requestClose();
      writeReplies(ctx);
      return;
    }
    context.clients().add(session, ctx.channel());
    decoder = ctx.pipeline().get(RespDecoder.class);
    if (decoder != null) {
      decoder.lookahead(commands.lookahead(session));
    }
    ctx.fireChannelActive();
  }

  /** Adds the bytes received since the last look to the connection's and the server's counts. */
  private void countInput() {
    if (decoder != null) {
      long total = decoder.receivedBytes();
      if (total != session.netIn()) {
        context.traffic().received(total - session.netIn());
        session.netIn(total);
      }
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    // the decoder counted the read before it decoded this request
    countInput();
    // messages published before this request arrived go out before its reply
    outbox.takeWaiting();
    if (waiting) {
      // a deferred reply (SAVE) is outstanding: later requests wait their turn
      queued.add(msg);
      buffers.held(heldBytes(msg));
      return;
    }
    handle(ctx, msg, false);
  }

  /**
   * Runs one request; {@code again} when it runs once more after a wait (it keeps the CLIENT REPLY
   * SKIP state it started with).
   */
  private void handle(ChannelHandlerContext ctx, Object msg, boolean again) {
    if (session.closeRequested()) {
      return;
    }
    if (msg instanceof byte[][]) {
      Reply reply = session.reply();
      if (!again) {
        reply.commandStarts();
      }
      int replyStart = reply.pendingBytes();
      long lastBefore = session.lastLogged();
      buffers.running((byte[][]) msg);
      commands.execute(session, (byte[][]) msg);
      if (reply.silenced()) {
        // CLIENT REPLY OFF or SKIP: nobody reads this reply; a write is still logged and its
        // acknowledgement still waits for the log, with no reply to replace if it was undone
        reply.dropFrom(replyStart);
      } else if (session.lastLogged() != lastBefore) {
        noteWrite(replyStart, reply.pendingBytes(), session.lastLogged());
      }
      CompletableFuture<Consumer<Reply>> deferred = session.takeDeferred();
      CompletableFuture<Void> retry = session.takeRetry();
      if (deferred != null) {
        waiting = true;
        ctx.channel().config().setAutoRead(false);
        deferred.whenComplete(
            (fill, error) ->
                ctx.executor()
                    .execute(
                        () ->
                            resume(
                                ctx,
                                () -> {
                                  int start = session.reply().pendingBytes();
                                  if (fill != null) {
                                    fill.accept(session.reply());
                                  } else {
                                    session.reply().error("ERR " + error);
                                  }
                                  if (session.reply().silenced()) {
                                    session.reply().dropFrom(start);
                                  }
                                })));
      } else if (retry != null) {
        waiting = true;
        ctx.channel().config().setAutoRead(false);
        retry.whenComplete(
            (ready, error) ->
                ctx.executor().execute(() -> resume(ctx, () -> handle(ctx, msg, true))));
      } else {
        buffers.running(null);
      }
    } else if (msg instanceof RespDecoder.ProtocolError) {
      session.reply().error(((RespDecoder.ProtocolError) msg).message());
      session.requestClose();
    }
    if (session.reply().pendingBytes() >= EARLY_FLUSH_BYTES) {
      writeReplies(ctx);
    }
  }

  /**
   * Ends a wait: {@code next} writes the deferred reply or runs the command again (which may wait
   * once more), then the requests that arrived meanwhile run.
   */
  private void resume(ChannelHandlerContext ctx, Runnable next) {
    if (!ctx.channel().isActive()) {
      queued.clear();
      return;
    }
    waiting = false;
    session.unblock();
    buffers.running(null);
    next.run();
    while (!waiting && !queued.isEmpty()) {
      Object msg = queued.poll();
      buffers.held(-heldBytes(msg));
      handle(ctx, msg, false);
    }
    writeReplies(ctx);
    if (!waiting && ctx.channel().isWritable()) {
      ctx.channel().config().setAutoRead(true);
    }
  }

  /** Returns the argument bytes of a request held back while the connection waits. */
  private static long heldBytes(Object msg) {
    return msg instanceof byte[][] args ? ConnectionBuffers.argumentBytes(args) : 0;
  }

  private void noteWrite(int replyStart, int replyEnd, long lsn) {
    if (writeCount * 3 == writes.length) {
      writes = java.util.Arrays.copyOf(writes, writes.length * 2);
    }
    writes[writeCount * 3] = replyStart;
    writes[writeCount * 3 + 1] = replyEnd;
    writes[writeCount * 3 + 2] = lsn;
    writeCount++;
  }

  /**
   * Replaces the reply of every write of the batch whose log record was undone with the log's
   * error; the replies of reads and of writes that are durable stay as they were.
   */
  private void replaceUndoneReplies() {
    ByteBuf replies = session.reply().take();
    if (replies == null) {
      return;
    }
    try {
      String error = writePath.undoneError();
      int copied = 0;
      for (int i = 0; i < writeCount; i++) {
        int start = (int) writes[i * 3];
        int end = (int) writes[i * 3 + 1];
        if (!writePath.acknowledged(writes[i * 3 + 2])) {
          session.reply().raw(replies, copied, start);
          session.reply().error(error);
          copied = end;
        }
      }
      session.reply().raw(replies, copied, replies.readableBytes());
    } finally {
      replies.release();
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (session != null
        && context
            .bufferLimits()
            .queryExceeded(session, Authentication.of(ctx.channel()).authenticated())) {
      // as Redis's freeClientAsync: what it sent and what waits for it are dropped
      ctx.close();
      return;
    }
    if (writePath.awaitsLog(session) && !session.closeRequested()) {
      // replies that acknowledge writes wait for the end of this event-loop iteration: one log
      // write then covers every connection the iteration served
      PendingCommits pending = PENDING.get();
      pending.add(this, ctx);
      return;
    }
    writeReplies(ctx);
  }

  /**
   * The connections of one event loop whose replies wait for the log: written by one task that runs
   * after the loop has handled its ready connections (Netty runs tasks after I/O), so one log write
   * (and with appendfsync always one fsync) serves them all.
   */
  private static final class PendingCommits implements Runnable {
    private final ArrayDeque<CommandHandler> handlers = new ArrayDeque<>();
    private final ArrayDeque<ChannelHandlerContext> contexts = new ArrayDeque<>();

    void add(CommandHandler handler, ChannelHandlerContext ctx) {
      if (handlers.isEmpty()) {
        ctx.executor().execute(this);
      }
      handlers.add(handler);
      contexts.add(ctx);
    }

    @Override
    public void run() {
      while (!handlers.isEmpty()) {
        CommandHandler handler = handlers.poll();
        ChannelHandlerContext ctx = contexts.poll();
        if (ctx.channel().isActive()) {
          // the first commit writes everything buffered; the others find their records written
          handler.writeReplies(ctx);
        }
      }
    }
  }

  private static final FastThreadLocal<PendingCommits> PENDING =
      new FastThreadLocal<>() {
        @Override
        protected PendingCommits initialValue() {
          return new PendingCommits();
        }
      };

  private void writeReplies(ChannelHandlerContext ctx) {
    if (!writePath.acknowledge(session)) {
      replaceUndoneReplies();
    }
    writeCount = 0;
    ByteBuf out = session.reply().take();
    if (out != null) {
      session.addNetOut(out.readableBytes());
      context.traffic().sent(out.readableBytes());
    }
    if (session.closeRequested()) {
      if (out != null) {
        ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
      } else {
        ctx.close();
      }
      return;
    }
    if (out != null) {
      ctx.write(out, ctx.voidPromise());
      // as Redis, the replies count against the limit before the socket takes any of them
      if (context.bufferLimits().outputExceeded(session, true)) {
        ctx.close();
        return;
      }
      ctx.flush();
      if (!ctx.channel().isWritable()) {
        ctx.channel().config().setAutoRead(false);
      }
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable() && !waiting) {
      ctx.channel().config().setAutoRead(true);
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    context.clients().remove(session);
    if (counted) {
      context.connectedClients().decrementAndGet();
      counted = false;
    }
    if (session != null) {
      context.clientMemory().forget(session);
      session.reply().discard();
      context.watches().unwatchAll(session);
      context.pubSub().leave(session.subscriber());
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof IdleStateEvent) {
      // as Redis's clientsCronHandleTimeout, the timeout spares subscribers (they only listen)
      if (session == null || !session.subscriber().subscribed()) {
        ctx.close();
      }
    } else {
      ctx.fireUserEventTriggered(event);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (HeapGuard.outOfMemory(cause)) {
      HeapGuard.fatal("a client connection", cause);
    }
    if (!(cause instanceof IOException)) {
      LOGGER.log(Level.WARNING, "closing client after an error", cause);
    }
    ctx.close();
  }
}
