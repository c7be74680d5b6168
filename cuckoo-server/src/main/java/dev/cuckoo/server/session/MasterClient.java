package dev.cuckoo.server.session;

import java.net.SocketAddress;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A replica's link to its master as a client of this server, as Redis's master client ({@code
 * replication.c} replicationCreateMasterClient): registered while the master's stream is applied,
 * listed by CLIENT LIST with flag M (TYPE master), counted in INFO connected_clients, and closed by
 * CLIENT KILL, after which the link reconnects and continues.
 *
 * <p>The link applies the stream on a thread of its own, which never runs tasks for others; so the
 * stream's commands run holding {@link #lock}, and CLIENT LIST reads the session holding it too, on
 * a thread of this client's (a command of the stream may wait for keys, and a network thread must
 * not wait for it). Killing the link only closes its socket: the command being applied completes,
 * and the link asks the master to continue after the last command it applied.
 */
public final class MasterClient implements ClientRegistry.Endpoint {
  /** Held while a command of the stream runs and while CLIENT LIST reads the session. */
  public final Object lock = new Object();

  private final LongSupplier clientIds;
  private final ClientRegistry clients;
  private final Session session;
  private final ThreadPoolExecutor reader =
      new ThreadPoolExecutor(
          1,
          1,
          10,
          TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(),
          task -> {
            Thread thread = new Thread(task, "master-client-reader");
            thread.setDaemon(true);
            return thread;
          });
  // under lock; 0 before the first connection
  private long id;
  private long createdMillis;
  private volatile boolean up;
  private volatile Runnable closer;

  /**
   * Creates the client of the master link that runs the stream in {@code session}.
   *
   * @param clientIds gives the id of each new client
   * @param clients the registry the link is listed in while it is up
   * @param session the session the stream runs in
   */
  public MasterClient(LongSupplier clientIds, ClientRegistry clients, Session session) {
    this.clientIds = clientIds;
    this.clients = clients;
    this.session = session;
    reader.allowCoreThreadTimeOut(true);
  }

  /**
   * Registers the link as a client once its stream starts. A link that continues (+CONTINUE)
   * resumes the client of its last connection, its id and age, as Redis's cached master; after a
   * full transfer it is a new client.
   *
   * @param master the master's address (CLIENT LIST addr)
   * @param local this end of the link (laddr)
   * @param resumed true if the link continued where its last connection stopped
   * @param close closes the link's connection
   * @return the client's id
   */
  public long up(SocketAddress master, SocketAddress local, boolean resumed, Runnable close) {
    long now = System.currentTimeMillis();
    long current;
    long created;
    synchronized (lock) {
      if (id == 0 || !resumed) {
        id = clientIds.getAsLong();
        createdMillis = now;
        session.startHistory(now);
      } else {
        session.interacted(now);
      }
      current = id;
      created = createdMillis;
      closer = close;
      up = true;
    }
    clients.addMaster(current, session, this, master, local, created);
    return current;
  }

  /**
   * Takes the link out of the registry when the connection of client {@code ended} ended; nothing
   * happens if a newer connection registered since (an old link stopped late).
   */
  public void down(long ended) {
    synchronized (lock) {
      if (!up || ended != id) {
        return;
      }
      up = false;
    }
    clients.removeMaster(ended);
  }

  @Override
  public void execute(Runnable task) {
    reader.execute(
        () -> {
          synchronized (lock) {
            task.run();
          }
        });
  }

  @Override
  public boolean isOpen() {
    return up;
  }

  @Override
  public void close(Session unused) {
    Runnable close = closer;
    if (close != null) {
      close.run();
    }
  }
}
