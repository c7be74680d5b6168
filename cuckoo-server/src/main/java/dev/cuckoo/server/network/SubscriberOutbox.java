package dev.cuckoo.server.network;

import dev.cuckoo.server.pubsub.Frame;
import dev.cuckoo.server.pubsub.Subscriber;
import dev.cuckoo.server.session.Session;
import io.netty.channel.Channel;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;

/**
 * Delivers published messages to one connection: each is appended to the connection's reply stream
 * on its own event loop (after the replies already there, so a SUBSCRIBE confirmation precedes the
 * channel's messages) and flushed by a task that runs once the loop is free.
 *
 * <p>A subscriber (or MONITOR) that reads slower than messages arrive would make the server hold
 * them all; as Redis's {@code client-output-buffer-limit} (pubsub class: default 32mb 8mb 60; a
 * MONITOR is of the normal class), the connection is closed when what waits for it (reply stream
 * and socket queue) passes its class's limit, checked at every message.
 */
final class SubscriberOutbox implements Subscriber.Outbox {
  private final Channel channel;
  private final Session session;
  private final BooleanSupplier overLimit;
  private final Runnable flush;
  private boolean flushScheduled;

  /**
   * Creates the outbox of a connection.
   *
   * @param channel the connection
   * @param session its session (read and written only on the channel's event loop)
   * @param overLimit true (logged and counted) once what waits for the connection passed its output
   *     buffer limit
   * @param flush writes the session's pending replies (run on the event loop)
   */
  SubscriberOutbox(Channel channel, Session session, BooleanSupplier overLimit, Runnable flush) {
    this.channel = channel;
    this.session = session;
    this.overLimit = overLimit;
    this.flush = flush;
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
    if (overLimit.getAsBoolean()) {
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
}
