package dev.cuckoo.server.replication;

import dev.cuckoo.server.persist.Persistence;
import java.util.ArrayList;
import java.util.List;

/**
 * How far into its master's stream a replica's own log is forced to disk: the {@code FACK} of its
 * {@code REPLCONF ACK <offset> FACK <offset>} (Redis's fsynced_reploff), which the master's WAITAOF
 * counts.
 *
 * <p>The log numbers records, not stream bytes. So each ACK takes a sample: the stream offset
 * applied so far, read first, and then the number of the last record appended, which covers every
 * record of those bytes. Once the log has forced that record, the offset is on disk. An offset
 * whose records are already forced when sampled (the log has nothing pending) is on disk at once,
 * as Redis reports its applied offset when its log has nothing left to fsync.
 *
 * <p>A sample taken for the master's GETACK is wanted: when a later fsync covers it, {@link
 * #advance} says so, and the replica sends an ACK then rather than at the next second.
 *
 * <p>While a full copy is swapped in and saved ({@link #suspend}), nothing is reported: the data
 * then on disk is not the data the offsets name.
 */
final class FsyncedOffset {
  /** The most samples kept waiting for an fsync; a newer one replaces the newest beyond it. */
  private static final int MAX_SAMPLES = 16;

  /** A stream offset that is on disk once record {@code lsn} is forced. */
  private record Sample(long lsn, long offset, boolean wanted) {}

  private final List<Sample> samples = new ArrayList<>();
  private Persistence log;
  private long fsynced;
  private boolean suspended;
  private volatile boolean wantedPending;

  /**
   * Samples the replica's position: {@code applied} (read before this call) is on disk once the log
   * forces the last record appended now. Returns the offset known on disk, or -1 while suspended.
   */
  synchronized long sample(Persistence persistence, long applied, boolean wanted) {
    if (suspended) {
      return -1;
    }
    if (persistence != log) {
      // appendonly turned off and on: the numbers restart; what was reported stays on disk
      log = persistence;
      samples.clear();
    }
    Sample sample = new Sample(persistence.appendedLsn(), applied, wanted);
    if (samples.size() == MAX_SAMPLES) {
      Sample dropped = samples.remove(MAX_SAMPLES - 1);
      sample = new Sample(sample.lsn, sample.offset, wanted || dropped.wanted);
    }
    samples.add(sample);
    advanceLocked();
    return fsynced;
  }

  /** Returns true if a wanted sample waits for an fsync (read without the lock). */
  boolean wantedPending() {
    return wantedPending;
  }

  /**
   * Moves the offset on disk to the samples the log has forced; returns true if one of them was
   * wanted (the master asked, and hears of it now).
   */
  synchronized boolean advance() {
    return !suspended && log != null && advanceLocked();
  }

  private boolean advanceLocked() {
    if (log.refusal() != null) {
      // the log failed: records not forced are being undone, nothing more is reported
      return false;
    }
    boolean wanted = false;
    long forced = log.fsyncedLsn();
    while (true) {
      boolean pending = false;
      for (java.util.Iterator<Sample> it = samples.iterator(); it.hasNext(); ) {
        Sample sample = it.next();
        if (sample.lsn <= forced) {
          fsynced = Math.max(fsynced, sample.offset);
          wanted |= sample.wanted;
          it.remove();
        } else {
          pending |= sample.wanted;
        }
      }
      wantedPending = pending;
      // an fsync that ended before wantedPending was set did not see it: look once more
      long now = log.fsyncedLsn();
      if (!pending || now == forced) {
        return wanted;
      }
      forced = now;
    }
  }

  /** Stops reporting until {@link #resume} (a full copy is being swapped in and saved). */
  synchronized void suspend() {
    suspended = true;
    samples.clear();
    wantedPending = false;
  }

  /** Reports again from {@code onDisk} on (the offset the saved copy holds; 0 if unknown). */
  synchronized void resume(long onDisk) {
    suspended = false;
    samples.clear();
    fsynced = onDisk;
    wantedPending = false;
  }
}
