package dev.cuckoo.server.keyspace;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Predicate;

/**
 * Keeps commands that move data between keys (RENAME, MOVE, SWAPDB, or a transaction holding one)
 * apart from fuzzy snapshots (a save, or a replication transfer). A record that moves data is then
 * either before a snapshot's cut or after its last key, so whoever loads the snapshot applies it
 * whole or skips it whole.
 */
public final class MoveGate {
  private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
  private final java.util.concurrent.locks.ReentrantLock snapshots =
      new java.util.concurrent.locks.ReentrantLock();
  private volatile CompletableFuture<Void> snapshotDone;

  /**
   * Lets a moving command run: returns true once it holds the gate (the caller runs, records and
   * then calls {@link #leave}), or false if a snapshot is being taken and {@code retryAfter}
   * accepted to run the command again when it is done (a caller that cannot retry waits here).
   *
   * @param retryAfter asks for the command to run again once the future completes; false if the
   *     caller must wait itself
   */
  public boolean enter(Predicate<CompletableFuture<Void>> retryAfter) {
    while (!gate.readLock().tryLock()) {
      CompletableFuture<Void> done = snapshotDone;
      if (done == null) {
        done = CompletableFuture.completedFuture(null);
      }
      if (retryAfter.test(done)) {
        return false;
      }
      done.join();
    }
    return true;
  }

  /** Releases the gate taken by {@link #enter}. */
  public void leave() {
    gate.readLock().unlock();
  }

  /**
   * Closes the gate for a snapshot: waits for moving commands to finish, holds new ones back (one
   * snapshot at a time).
   */
  public void closeForSnapshot() {
    snapshots.lock();
    snapshotDone = new CompletableFuture<>();
    gate.writeLock().lock();
  }

  /** Opens the gate again after {@link #closeForSnapshot} (same thread). */
  public void open() {
    CompletableFuture<Void> done = snapshotDone;
    snapshotDone = null;
    gate.writeLock().unlock();
    snapshots.unlock();
    if (done != null) {
      done.complete(null);
    }
  }
}
