package dev.cuckoo.server.session;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * CLIENT PAUSE and UNPAUSE, as Redis's pauseActions: until the pause ends, the commands of clients
 * (not of replicas, the master's link or monitors) that may change data (WRITE mode: writes,
 * PUBLISH, an EXEC of such commands) or every command (ALL mode) wait, unanswered, and run once it
 * ends; expired keys are not deleted meanwhile (reads see them gone). A new pause keeps the later
 * end of the two and ALL over WRITE; UNPAUSE ends it at once. The waiting commands resume through
 * the connection's retry ({@link Session#retryAfter}).
 *
 * <p>A coordinated failover (FAILOVER) holds writes back for a purpose of its own, as Redis's
 * PAUSE_DURING_FAILOVER: CLIENT UNPAUSE does not end it, and the commands wait until both purposes
 * have ended.
 */
public final class ClientPause {
  private long endMillis;
  private boolean all;
  private boolean byClient;
  private boolean byFailover;
  private long failoverEndMillis;
  private CompletableFuture<Void> ended = CompletableFuture.completedFuture(null);
  private volatile boolean active;

  /**
   * Pauses until {@code endMillis} (Unix milliseconds; a pause in force keeps its later end), every
   * command if {@code all}, else those that may change data (an ALL pause in force stays ALL).
   */
  public synchronized void pause(long endMillis, boolean all) {
    begin();
    if (!byClient) {
      byClient = true;
      this.endMillis = endMillis;
      this.all = all;
    } else {
      this.endMillis = Math.max(this.endMillis, endMillis);
      this.all |= all;
    }
    long delay = Math.max(0, this.endMillis - System.currentTimeMillis());
    CompletableFuture.runAsync(
        this::endIfDue, CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS));
  }

  /** Starts holding commands back if nothing held them yet (guarded by this). */
  private void begin() {
    if (!active) {
      ended = new CompletableFuture<>();
      active = true;
    }
  }

  /**
   * Holds writes back for a coordinated failover ({@code on}: until it is ended), or ends that
   * hold; a CLIENT PAUSE in force meanwhile keeps its own end.
   */
  public void failover(boolean on) {
    if (on) {
      failoverUntil(Long.MAX_VALUE);
      return;
    }
    synchronized (this) {
      byFailover = false;
    }
    release();
  }

  /**
   * Holds writes back for a failover until {@code endMillis} (Unix milliseconds; {@link
   * Long#MAX_VALUE}: until {@link #failover failover(false)}), as a cluster's manual failover
   * pauses its master for a bounded time. CLIENT UNPAUSE does not end it.
   */
  public void failoverUntil(long endMillis) {
    synchronized (this) {
      begin();
      byFailover = true;
      failoverEndMillis = endMillis;
    }
    if (endMillis != Long.MAX_VALUE) {
      long delay = Math.max(0, endMillis - System.currentTimeMillis());
      CompletableFuture.runAsync(
          this::endFailoverIfDue, CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS));
    }
  }

  private void endFailoverIfDue() {
    synchronized (this) {
      if (!byFailover || System.currentTimeMillis() < failoverEndMillis) {
        return;
      }
    }
    failover(false);
  }

  /** Ends the pause now (CLIENT UNPAUSE); the waiting commands run unless a failover holds them. */
  public void unpause() {
    synchronized (this) {
      byClient = false;
      all = false;
    }
    release();
  }

  /** Lets the waiting commands run once no purpose holds them. */
  private void release() {
    CompletableFuture<Void> resumed;
    synchronized (this) {
      if (!active || byClient || byFailover) {
        return;
      }
      active = false;
      resumed = ended;
    }
    resumed.complete(null);
  }

  private void endIfDue() {
    synchronized (this) {
      if (!byClient || System.currentTimeMillis() < endMillis) {
        return;
      }
    }
    unpause();
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
