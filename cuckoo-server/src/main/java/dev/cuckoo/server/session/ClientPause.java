package dev.cuckoo.server.session;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one pause of clients' commands, as Redis's pauseActions: each purpose that asks for a pause
 * (CLIENT PAUSE, a failover) holds commands back until its own end, and the commands wait until
 * every purpose has ended. While any pause is in force the commands of clients (not of replicas,
 * the master's link or monitors) that may change data (WRITE mode: writes, PUBLISH, an EXEC of such
 * commands) or every command (ALL mode, when some purpose asked for it) wait, unanswered, and run
 * once it ends; expired keys are not deleted meanwhile (reads see them gone), and a master sends
 * its replicas no PING, so its offset stands still. The waiting commands resume through the
 * connection's retry ({@link Session#retryAfter}).
 *
 * <p>A purpose that asks again keeps the later end of the two and ALL over WRITE; {@link #unpause}
 * ends one purpose's pause at once (CLIENT UNPAUSE ends the client's, never a failover's).
 */
public final class ClientPause {
  /** Why commands are held back, as Redis's pause_purpose. */
  public enum Purpose {
    /** CLIENT PAUSE (PAUSE_BY_CLIENT_COMMAND): its timeout or CLIENT UNPAUSE ends it. */
    CLIENT_COMMAND,
    /**
     * A failover (PAUSE_DURING_FAILOVER): FAILOVER while its replica catches up, a cluster master
     * while its replica takes over (CLUSTER FAILOVER); CLIENT UNPAUSE does not end it.
     */
    FAILOVER
  }

  /** What a pause holds back, as CLIENT PAUSE's mode. */
  public enum Mode {
    /** The commands that may change data or be sent to replicas. */
    WRITE,
    /** Every command. */
    ALL
  }

  /** One purpose's pause: when it ends and whether it holds every command. */
  private record Hold(long endMillis, boolean all) {}

  // guarded by this
  private final Map<Purpose, Hold> holds = new EnumMap<>(Purpose.class);
  private CompletableFuture<Void> ended = CompletableFuture.completedFuture(null);
  private boolean all;
  private volatile boolean active;

  /**
   * Pauses for {@code purpose} until {@code endMillis} (Unix milliseconds; {@link Long#MAX_VALUE}:
   * until {@link #unpause}). A pause of the same purpose in force keeps the later end and an ALL
   * mode.
   */
  public void pause(Purpose purpose, long endMillis, Mode mode) {
    long end;
    synchronized (this) {
      if (!active) {
        ended = new CompletableFuture<>();
        active = true;
      }
      Hold before = holds.get(purpose);
      Hold hold =
          before == null
              ? new Hold(endMillis, mode == Mode.ALL)
              : new Hold(Math.max(before.endMillis(), endMillis), before.all() || mode == Mode.ALL);
      holds.put(purpose, hold);
      all |= hold.all();
      end = hold.endMillis();
    }
    if (end != Long.MAX_VALUE) {
      long delay = Math.max(0, end - System.currentTimeMillis());
      CompletableFuture.runAsync(
          () -> endIfDue(purpose), CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS));
    }
  }

  /**
   * Ends {@code purpose}'s pause now; the waiting commands run unless another purpose holds them.
   */
  public void unpause(Purpose purpose) {
    end(purpose, false);
  }

  private void endIfDue(Purpose purpose) {
    end(purpose, true);
  }

  /** Ends a purpose's pause (if {@code onlyIfDue}, only once its end has come). */
  private void end(Purpose purpose, boolean onlyIfDue) {
    CompletableFuture<Void> resumed;
    synchronized (this) {
      Hold hold = holds.get(purpose);
      if (hold == null || onlyIfDue && System.currentTimeMillis() < hold.endMillis()) {
        return;
      }
      holds.remove(purpose);
      all = false;
      for (Hold other : holds.values()) {
        all |= other.all();
      }
      if (!holds.isEmpty()) {
        return;
      }
      active = false;
      resumed = ended;
    }
    resumed.complete(null);
  }

  /** Returns true while a pause is in force: expired keys are not deleted. */
  public boolean active() {
    return active;
  }

  /**
   * Returns what a command must wait for, or null if it may run now.
   *
   * @param mayChangeData whether the command may change data or be sent to replicas
   */
  public CompletableFuture<Void> holds(boolean mayChangeData) {
    if (!active) {
      return null;
    }
    synchronized (this) {
      return active && (all || mayChangeData) ? ended : null;
    }
  }
}
