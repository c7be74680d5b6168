package dev.cuckoo.server.cluster;

import java.io.IOException;

/**
 * Puts the contents of nodes.conf in place in the order the cluster state made them, while the slow
 * part of each write (the temporary file and its fsync) may run outside the state's monitor and
 * beside other writes: a content is renamed over the file only if no newer one is there already.
 * The state numbers each content it makes ({@link #nextSequence}, under its monitor), so a newer
 * content holds every change an older one holds.
 *
 * <p>A write made under the state's monitor holds the newest content and always takes its place. A
 * write made outside it (the bus's, see ClusterState) may find a newer content there first; that
 * one holds its changes, but perhaps not forced to disk: the caller writes again if it needed that.
 */
final class ConfigWriter {
  private final ClusterState.Saver saver;
  // the last sequence given out; only read and changed under the state's monitor
  private long made;
  // the sequence of the content in place; guarded by this
  private long placed;

  ConfigWriter(ClusterState.Saver saver) {
    this.saver = saver;
  }

  /** Numbers a content the state is about to write (called under the state's monitor). */
  long nextSequence() {
    return ++made;
  }

  /**
   * Writes content number {@code sequence} and puts it in place, unless a newer content is in place
   * already (then nothing changes and the temporary file is removed).
   *
   * @param sequence the content's number from {@link #nextSequence}
   * @param content the content of nodes.conf
   * @param fsync whether the content must be forced to disk
   * @return true if the content took its place, false if a newer one was there first
   * @throws IOException if the file could not be written or replaced
   */
  boolean write(long sequence, String content, boolean fsync) throws IOException {
    ClusterState.StagedSave staged = saver.stage(content, fsync);
    boolean placedNow;
    synchronized (this) {
      placedNow = sequence > placed;
      if (placedNow) {
        staged.replace();
        placed = sequence;
      }
    }
    if (placedNow) {
      staged.afterReplace();
    } else {
      staged.discard();
    }
    return placedNow;
  }
}
