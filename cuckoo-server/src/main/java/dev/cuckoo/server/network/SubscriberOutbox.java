package dev.cuckoo.server.network;

import dev.cuckoo.server.config.OutputBufferLimit;
import dev.cuckoo.server.pubsub.Frame;
import dev.cuckoo.server.pubsub.Subscriber;
import dev.cuckoo.server.session.Session;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import java.lang.System.Logger.Level;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;

/**
 * Delivers published messages to one connection: each is appended to the connection's reply stream
 * on its own event loop (after the replies already there, so a SUBSCRIBE confirmation precedes the
 * channel's messages) and flushed by a task that runs once the loop is free.
 *
 * <p>A subscriber that reads slower than messages arrive would make the server hold them all; as
 * Redis's {@code client-output-buffer-limit pubsub} (default 32mb 8mb 60), the connection is closed
 * when what waits for it (reply stream and socket queue) exceeds the hard limit, or stays above the
 * soft limit longer than the soft limit's seconds.
 */
final class SubscriberOutbox implements Subscriber.Outbox {
  private static final System.Logger LOGGER = System.getLogger(SubscriberOutbox.class.getName());

  private final Channel channel;
  private final Session session;
  private final OutputBufferLimit limit;
  private final Runnable flush;
  private final LongSupplier clockMillis;
  private boolean flushScheduled;
  private long overSoftSinceMillis = -1;

  /**
   * Creates the outbox of a connection.
   *
   * @param channel the connection
   * @param session its session (read and written only on the channel's event loop)
   * @param limit the output buffer limit of pub/sub connections
   * @param flush writes the session's pending replies (run on the event loop)
   * @param clockMillis the time for the soft limit
   */
  SubscriberOutbox(
      Channel channel,
      Session session,
      OutputBufferLimit limit,
      Runnable flush,
      LongSupplier clockMillis) {
    this.channel = channel;
    this.session = session;
    this.limit = limit;
    this.flush = flush;
    this.clockMillis = clockMillis;
  }

  @Override
  public void deliver(Frame message) {
    if (channel.eventLoop().inEventLoop()) {
      append(message);
      return;
    }
    try {
      channel.eventLoop().execute(() -> append(message));
    } catch (RejectedExecutionException e) {
      // the server is stopping: the connection closes with it
    }
  }

  private void append(Frame message) {
    if (!channel.isActive() || session.closeRequested() || session.holdWhileRunning(message)) {
      return;
    }
    message.writeTo(session.reply());
    if (overLimit()) {
      LOGGER.log(
          Level.WARNING,
          "Client {0} closed for overcoming of output buffer limits.",
          channel.remoteAddress());
      session.requestClose();
      channel.close();
      return;
    }
    if (!flushScheduled) {
      flushScheduled = true;
      channel
          .eventLoop()
          .execute(
              () -> {
                flushScheduled = false;
                if (channel.isActive()) {
                  flush.run();
                }
              });
    }
  }

  /** Returns true if what waits for the connection is past the hard or (too long) soft limit. */
  private boolean overLimit() {
    ChannelOutboundBuffer queued = channel.unsafe().outboundBuffer();
    long waiting =
        session.reply().pendingBytes() + (queued == null ? 0 : queued.totalPendingWriteBytes());
    if (limit.hardBytes() > 0 && waiting > limit.hardBytes()) {
      return true;
    }
    if (limit.softBytes() <= 0 || waiting <= limit.softBytes()) {
      overSoftSinceMillis = -1;
      return false;
    }
    long now = clockMillis.getAsLong();
    if (overSoftSinceMillis < 0) {
      overSoftSinceMillis = now;
    }
    return now - overSoftSinceMillis > limit.softSeconds() * 1000;
  }
}
