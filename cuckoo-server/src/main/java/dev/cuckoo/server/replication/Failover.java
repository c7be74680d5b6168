package dev.cuckoo.server.replication;

/**
 * The state of a coordinated failover (Redis 6.2's FAILOVER) on a master: while {@link
 * State#WAITING_FOR_SYNC} the master holds writes back and waits for a replica (the named one, or
 * any) to acknowledge its whole stream; then, {@link State#IN_PROGRESS}, it follows that replica
 * and asks it with {@code PSYNC <replid> <offset> FAILOVER} to take over. Guarded by the {@link
 * Replication} that holds it.
 */
final class Failover {
  /** The states INFO replication reports as {@code master_failover_state}. */
  enum State {
    NONE("no-failover"),
    WAITING_FOR_SYNC("waiting-for-sync"),
    IN_PROGRESS("failover-in-progress");

    final String text;

    State(String text) {
      this.text = text;
    }
  }

  volatile State state = State.NONE;

  /** The replica to fail over to (null until one is named or found caught up). */
  String host;

  int port;

  /** When waiting ends (Unix milliseconds), 0 for never. */
  long endMillis;

  boolean force;

  /** Returns the target as Redis logs it. */
  String target() {
    return host == null ? "any replica" : host + ":" + port;
  }

  /** Forgets the failover (Redis's clearFailoverState). */
  void clear() {
    state = State.NONE;
    host = null;
    port = 0;
    endMillis = 0;
    force = false;
  }
}
