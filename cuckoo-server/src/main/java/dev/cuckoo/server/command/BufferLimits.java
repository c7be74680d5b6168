package dev.cuckoo.server.command;

import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.config.OutputBufferLimit;
import dev.cuckoo.server.config.OutputBufferLimits;
import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.protocol.Traffic;
import dev.cuckoo.server.session.ClientBuffers;
import dev.cuckoo.server.session.ClientRegistry;
import dev.cuckoo.server.session.Session;
import java.lang.System.Logger.Level;

/**
 * Redis's per-client buffer limits, checked on the client's event loop: {@code
 * client-output-buffer-limit} by class (Redis's {@code closeClientOnOutputBufferLimitReached}; a
 * replica's stream is checked by replication itself) and {@code client-query-buffer-limit} (Redis's
 * {@code readQueryFromClient}). A client past a limit is reported here — Redis's log line, counted
 * in INFO stats — and the caller closes it at once, its pending output dropped.
 */
public final class BufferLimits {
  private static final System.Logger LOGGER = System.getLogger(BufferLimits.class.getName());

  /** The query buffer a client may hold before it authenticates, as Redis (1 MiB). */
  static final long UNAUTHENTICATED_QUERY_BYTES = 1 << 20;

  /** How many bytes of the query buffer the log line shows, as Redis. */
  private static final int QUERY_HEAD_BYTES = 64;

  private final Config config;
  private final ClientRegistry clients;
  private final ClientMemory memory;
  private final Traffic traffic;

  BufferLimits(Config config, ClientRegistry clients, ClientMemory memory, Traffic traffic) {
    this.config = config;
    this.clients = clients;
    this.memory = memory;
    this.traffic = traffic;
  }

  /**
   * Returns true if the client's output waiting (reply bytes built and not yet written) passed the
   * limit of its class, after logging it and counting it; the caller then closes the connection. A
   * MONITOR is a normal client and the link to the master counts as one, as in Redis; a replica's
   * link is left to replication (false).
   *
   * @param session the client, on its event loop
   * @param scheduled true where Redis would close the client asynchronously (a reply being added),
   *     which its log line says; false for the clients' cron
   */
  public boolean outputExceeded(Session session, boolean scheduled) {
    ClientBuffers buffers = session.buffers();
    OutputBufferLimits limits = config.get(Parameters.CLIENT_OUTPUT_BUFFER_LIMIT);
    if (buffers.waitingOutputBytes() < smallest(limits.normal(), limits.pubsub())) {
      // below every limit (the common case, without looking the client up)
      buffers.outputLimit().below();
      return false;
    }
    ClientRegistry.Client client = clients.get(session.id());
    if (client == null || session.closeRequested()) {
      return false;
    }
    ClientRegistry.Role role = clients.role(client.id());
    String type = clients.type(client);
    OutputBufferLimit limit;
    switch (type) {
      case "slave" -> {
        return false;
      }
      case "pubsub" -> limit = limits.pubsub();
      default -> limit = limits.normal();
    }
    long now = System.currentTimeMillis();
    long output = memory.outputBytes(client, role);
    long waiting = buffers.replyBytes() + output;
    if (!buffers.outputLimit().exceeded(limit, waiting, now)) {
      return false;
    }
    LOGGER.log(
        Level.WARNING,
        "Client {0} {1} for overcoming of output buffer limits.",
        ClientCommands.describe(client, role, false, now, output),
        scheduled ? "scheduled to be closed ASAP" : "closed");
    traffic.outputLimitClosed();
    session.requestClose();
    return true;
  }

  /** Returns the smallest limit other than 0 of two classes (Long.MAX_VALUE if none). */
  private static long smallest(OutputBufferLimit one, OutputBufferLimit other) {
    return Math.min(
        Math.min(orNone(one.hardBytes()), orNone(one.softBytes())),
        Math.min(orNone(other.hardBytes()), orNone(other.softBytes())));
  }

  private static long orNone(long limitBytes) {
    return limitBytes > 0 ? limitBytes : Long.MAX_VALUE;
  }

  /**
   * Returns true if the client's query buffer and its queued MULTI commands passed {@code
   * client-query-buffer-limit} (1 MiB before it authenticates), after logging it and counting it;
   * the caller then closes the connection. The link to the master is never limited.
   *
   * @param session the client, on its event loop
   * @param authenticated false while the client still has to authenticate
   */
  public boolean queryExceeded(Session session, boolean authenticated) {
    if (session.fromMaster() || session.closeRequested()) {
      return false;
    }
    ClientBuffers buffers = session.buffers();
    long held = buffers.queryBytes() + buffers.multiBytes(session);
    long limit = config.get(Parameters.CLIENT_QUERY_BUFFER_LIMIT);
    if (held <= limit && (authenticated || held <= UNAUTHENTICATED_QUERY_BYTES)) {
      return false;
    }
    ClientRegistry.Client client = clients.get(session.id());
    String described = "id=" + session.id();
    if (client != null) {
      ClientRegistry.Role role = clients.role(client.id());
      described =
          ClientCommands.describe(
              client, role, false, System.currentTimeMillis(), memory.outputBytes(client, role));
    }
    StringBuilder head = new StringBuilder();
    MonitorLine.quote(head, buffers.queryHead(QUERY_HEAD_BYTES));
    LOGGER.log(
        Level.WARNING,
        "Closing client that reached max query buffer length: {0} (qbuf initial bytes: {1})",
        described,
        head);
    traffic.queryLimitClosed();
    session.requestClose();
    return true;
  }
}
