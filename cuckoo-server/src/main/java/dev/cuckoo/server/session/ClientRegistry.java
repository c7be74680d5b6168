package dev.cuckoo.server.session;

import dev.cuckoo.server.pubsub.Frame;
import dev.cuckoo.server.pubsub.PubSub;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.unix.UnixChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * The live client connections of a server, by client id (so in connection order, as Redis's {@code
 * server.clients} list).
 *
 * <p>Connections live on different network threads, and a {@link Session} may only be read by its
 * own thread. So the registry keeps, besides the session, only what never changes for a connection
 * (id, addresses, creation time), which any thread may read; anything read from a session runs as a
 * task on that session's event loop ({@link #describeAll}).
 */
public final class ClientRegistry {
  /**
   * One client: its session, where its state is read and how it is closed, and the facts that never
   * change.
   *
   * @param id the client id
   * @param session the client's state, to be read only through {@code endpoint}
   * @param endpoint the client's connection
   * @param addr the peer address as Redis prints it (ip:port)
   * @param laddr the local address as Redis prints it (ip:port)
   * @param fd the socket's file descriptor (with the epoll transport; else a stand-in)
   * @param createdMillis when the connection was accepted
   */
  public record Client(
      long id,
      Session session,
      Endpoint endpoint,
      String addr,
      String laddr,
      int fd,
      long createdMillis) {
    /** Returns the client's Netty channel, or null for a client without one (the master link). */
    public Channel channel() {
      return endpoint instanceof ChannelEndpoint connection ? connection.channel() : null;
    }
  }

  /**
   * A client's connection as the registry uses it: a Netty channel, or the replica's link to its
   * master, which has a thread of its own.
   */
  public interface Endpoint {
    /**
     * Runs a task that reads the client's session where that is safe (a channel's event loop).
     *
     * @throws RejectedExecutionException if the connection can no longer run tasks
     */
    void execute(Runnable task);

    /** Returns true while the connection is open. */
    boolean isOpen();

    /**
     * Closes the connection after the replies already sent on it are written; its session runs no
     * more requests.
     */
    void close(Session session);
  }

  /** A client connected through a Netty channel: its state is read on the channel's event loop. */
  private record ChannelEndpoint(Channel channel) implements Endpoint {
    @Override
    public void execute(Runnable task) {
      channel.eventLoop().execute(task);
    }

    @Override
    public boolean isOpen() {
      return channel.isActive();
    }

    @Override
    public void close(Session session) {
      // at once, as Redis's CLIENT KILL: a request the connection reads from now on is not run
      session.requestClose();
      try {
        channel
            .eventLoop()
            .execute(
                () -> {
                  channel
                      .writeAndFlush(Unpooled.EMPTY_BUFFER)
                      .addListener(ChannelFutureListener.CLOSE);
                });
      } catch (RejectedExecutionException e) {
        channel.close();
      }
    }
  }

  /**
   * What a connection is to this server besides a client: the replication link of a replica
   * attached here, or this server's own link to its master (Redis's CLIENT_SLAVE, CLIENT_MASTER).
   */
  public enum Role {
    /** A replica's connection, fed the write stream (CLIENT LIST flag S, TYPE replica). */
    REPLICA,
    /** The link to this server's master (CLIENT LIST flag M, TYPE master). */
    MASTER,
    /** A connection in MONITOR mode, fed every command (CLIENT LIST flag O, TYPE normal). */
    MONITOR
  }

  /** Redis's listening sockets take the low descriptors; its client sockets start at 8. */
  private static final int FIRST_CLIENT_FD = 8;

  private final ConcurrentSkipListMap<Long, Client> clients = new ConcurrentSkipListMap<>();
  private final Map<Long, Role> roles = new ConcurrentHashMap<>();
  private final java.util.List<Client> monitors = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final PubSub pubSub;

  /** Creates an empty registry; a connection with subscriptions in {@code pubSub} is pubsub. */
  public ClientRegistry(PubSub pubSub) {
    this.pubSub = pubSub;
  }

  /**
   * Marks a registered connection as a replica's link or the link to the master; CLIENT LIST and
   * CLIENT KILL TYPE then report it so. The mark goes with the connection.
   */
  public void mark(Session session, Role role) {
    roles.put(session.id(), role);
  }

  /**
   * Returns the connection's type as Redis's {@code getClientType} names it, from any thread:
   * "master", "slave" (a replica), "pubsub" (any subscription) or "normal".
   */
  public String type(Client client) {
    Role role = roles.get(client.id());
    if (role == Role.MASTER) {
      return "master";
    }
    if (role == Role.REPLICA) {
      return "slave";
    }
    return pubSub.isSubscribed(client.session().subscriber()) ? "pubsub" : "normal";
  }

  /** Returns the role a connection was marked with, or null. */
  public Role role(long id) {
    return roles.get(id);
  }

  /** Registers a new connection (on its event loop, when it becomes active). */
  public void add(Session session, Channel channel) {
    clients.put(
        session.id(),
        new Client(
            session.id(),
            session,
            new ChannelEndpoint(channel),
            address(channel.remoteAddress()),
            address(channel.localAddress()),
            fd(channel, session.id()),
            System.currentTimeMillis()));
  }

  /**
   * Registers the replica's link to its master as a client (Redis's master client, flag M, TYPE
   * master) while its stream is up.
   *
   * @param id the client id (kept across partial resynchronisations, as Redis's cached master)
   * @param session the session the master's stream runs in
   * @param endpoint reads the session safely and closes the link
   * @param master the master's address
   * @param local this end of the link
   * @param createdMillis when the client was first created
   */
  public void addMaster(
      long id,
      Session session,
      Endpoint endpoint,
      SocketAddress master,
      SocketAddress local,
      long createdMillis) {
    roles.put(id, Role.MASTER);
    clients.put(
        id,
        new Client(
            id, session, endpoint, address(master), address(local), standInFd(id), createdMillis));
  }

  /** Removes the master link's client; nothing happens if it is not registered. */
  public void removeMaster(long id) {
    clients.remove(id);
    roles.remove(id, Role.MASTER);
  }

  /** Returns how many registered clients carry the role. */
  public int countOf(Role role) {
    int count = 0;
    for (Role each : roles.values()) {
      if (each == role) {
        count++;
      }
    }
    return count;
  }

  /** Removes a closed connection; nothing happens if it was not registered. */
  public void remove(Session session) {
    if (session != null) {
      clients.remove(session.id());
      if (roles.remove(session.id()) == Role.MONITOR) {
        monitors.removeIf(client -> client.id() == session.id());
      }
    }
  }

  /**
   * Puts a registered connection in MONITOR mode; returns false if it is a replica's link, the
   * master's or already a monitor (Redis ignores MONITOR then).
   */
  public boolean monitor(Session session) {
    Client client = clients.get(session.id());
    if (client == null || roles.putIfAbsent(session.id(), Role.MONITOR) != null) {
      return false;
    }
    monitors.add(client);
    return true;
  }

  /** Takes a connection out of MONITOR mode (RESET); nothing happens if it was not in it. */
  public void unmonitor(Session session) {
    if (roles.remove(session.id(), Role.MONITOR)) {
      monitors.removeIf(client -> client.id() == session.id());
    }
  }

  /** Returns true while some connection is in MONITOR mode (a cheap check per command). */
  public boolean monitored() {
    return !monitors.isEmpty();
  }

  /** Feeds the line of a command that ran to every monitor, as Redis's replicationFeedMonitors. */
  public void feedMonitors(Frame line) {
    for (Client monitor : monitors) {
      monitor.session().subscriber().deliver(line);
    }
  }

  /**
   * Returns the address MONITOR and SLOWLOG print for the session that ran a command, as Redis's
   * getClientPeerId: its connection's peer (ip:port); for the replica's link, which is no
   * registered connection, its master's; else "".
   */
  public String addressOf(Session session) {
    Client client = clients.get(session.id());
    return client != null ? client.addr() : session.linkAddress();
  }

  /** Returns the connection with this id, or null. */
  public Client get(long id) {
    return clients.get(id);
  }

  /** Returns how many connections wait in a command that blocks them (INFO blocked_clients). */
  public int blockedCount() {
    return count(Session::blocked);
  }

  /**
   * Returns how many connections wait in a blocking command with a timeout (INFO
   * clients_in_timeout_table: WAIT and WAITAOF with a timeout other than 0).
   */
  public int inTimeoutTable() {
    return count(Session::blockedWithTimeout);
  }

  private int count(java.util.function.Predicate<Session> test) {
    int count = 0;
    for (Client client : clients.values()) {
      if (test.test(client.session())) {
        count++;
      }
    }
    return count;
  }

  /** Returns the live connections in id order (a weakly consistent view). */
  public Collection<Client> all() {
    return clients.values();
  }

  /**
   * Returns the socket's descriptor when the transport has one (epoll), else a number that is
   * stable for the connection and looks like one (the NIO transport hides descriptors).
   */
  private static int fd(Channel channel, long id) {
    if (channel instanceof UnixChannel unix && unix.fd().isOpen()) {
      return unix.fd().intValue();
    }
    return standInFd(id);
  }

  /** A stand-in descriptor for a client whose socket does not show its own. */
  private static int standInFd(long id) {
    return (int) (FIRST_CLIENT_FD + (id - 1) % (Integer.MAX_VALUE - FIRST_CLIENT_FD));
  }

  /**
   * Formats an address as Redis's {@code formatPeer}: {@code ip:port}, IPv6 addresses in brackets;
   * other address kinds (in-memory channels) as their text.
   */
  public static String address(SocketAddress address) {
    if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
      String ip = inet.getAddress().getHostAddress();
      int scope = ip.indexOf('%');
      if (scope >= 0) {
        ip = ip.substring(0, scope);
      }
      return (ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip) + ":" + inet.getPort();
    }
    return String.valueOf(address);
  }

  /**
   * Describes each given connection on its own event loop and completes with the descriptions in
   * the given order; a connection closed meanwhile is left out.
   */
  public static CompletableFuture<List<String>> describeAll(
      List<Client> targets, Function<Client, String> describe) {
    List<CompletableFuture<String>> lines = new ArrayList<>();
    for (Client client : targets) {
      CompletableFuture<String> line = new CompletableFuture<>();
      try {
        client
            .endpoint()
            .execute(
                () -> {
                  try {
                    line.complete(client.endpoint().isOpen() ? describe.apply(client) : null);
                  } catch (RuntimeException e) {
                    line.completeExceptionally(e);
                  }
                });
      } catch (RejectedExecutionException e) {
        line.complete(null);
      }
      lines.add(line);
    }
    return CompletableFuture.allOf(lines.toArray(new CompletableFuture<?>[0]))
        .thenApply(
            done -> {
              List<String> described = new ArrayList<>();
              for (CompletableFuture<String> line : lines) {
                String text = line.join();
                if (text != null) {
                  described.add(text);
                }
              }
              return described;
            });
  }

  /**
   * Closes another connection after the replies it has already been sent are written: the session
   * stops running requests and the channel closes once its outbound data is flushed (the work runs
   * on the connection's event loop); the master link's socket closes, and the link reconnects. The
   * connection leaves the registry at once.
   */
  public void kill(Client client) {
    clients.remove(client.id());
    client.endpoint().close(client.session());
  }
}
