package dev.cuckoo.server.command;

import dev.cuckoo.server.session.ClientRegistry;
import java.util.concurrent.RejectedExecutionException;

/**
 * The clients' side of Redis's serverCron ({@code clientsCron}), run ten times a second: each run
 * looks at a tenth of the clients (by id), so that every client is looked at once a second, each on
 * its own event loop — its buffers join INFO's recent maxima and totals ({@link ClientMemory}), and
 * a client held above its output buffer limit is closed ({@link BufferLimits}), so that a soft
 * limit's seconds run out even while nothing more is written to the client.
 */
public final class ClientsCron implements Runnable {
  /** How often {@link #run} is meant to be called, in milliseconds (Redis's default hz 10). */
  public static final long PERIOD_MILLIS = 100;

  private static final int RUNS_PER_SECOND = (int) (1000 / PERIOD_MILLIS);

  private final ClientRegistry clients;
  private final ClientMemory memory;
  private final BufferLimits limits;
  private long runs;

  ClientsCron(ClientRegistry clients, ClientMemory memory, BufferLimits limits) {
    this.clients = clients;
    this.memory = memory;
    this.limits = limits;
  }

  /** Looks at this run's share of the clients; called by one thread at a time. */
  @Override
  public void run() {
    long now = System.currentTimeMillis();
    memory.startSecond(now);
    long share = runs++ % RUNS_PER_SECOND;
    for (ClientRegistry.Client client : clients.all()) {
      if (client.id() % RUNS_PER_SECOND != share) {
        continue;
      }
      try {
        client.endpoint().execute(() -> look(client));
      } catch (RejectedExecutionException e) {
        // its event loop is stopping: the connection closes with it
      }
    }
  }

  private void look(ClientRegistry.Client client) {
    if (!client.endpoint().isOpen()) {
      return;
    }
    memory.track(client, clients.role(client.id()), System.currentTimeMillis());
    io.netty.channel.Channel channel = client.channel();
    if (channel != null && limits.outputExceeded(client.session(), false)) {
      // at once, its output dropped: a client that does not read would never see a flush end
      channel.close();
    }
  }
}
