package dev.cuckoo.server.acl;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The ACL log (ACL LOG), as Redis's: newest entry first; a denial like one of the ten newest
 * entries (same reason, context, object and user, within 60 seconds of its last update) counts in
 * that entry and moves it to the front instead of adding one; {@code acllog-max-len} bounds the
 * entries. It also counts every denial by reason (INFO stats' {@code acl_access_denied_*}).
 */
public final class AclLog {
  /** How close in time a denial must be to an entry to count in it (Redis: 60 s). */
  private static final long GROUPING_MILLIS = 60_000;

  /** How many of the newest entries a denial is compared with (Redis: 10). */
  private static final int GROUPING_SCAN = 10;

  /**
   * One entry of the log.
   *
   * @param count how many denials it stands for
   * @param reason command, key, channel or auth
   * @param context where the command ran: toplevel or multi
   * @param object the command, key, channel or command name (auth) refused
   * @param username the user refused
   * @param clientInfo the last refused client's CLIENT LIST line
   * @param entryId the entry's number, counted from the server's start
   * @param createdMillis when the entry was made (Unix ms)
   * @param updatedMillis when it last counted a denial (Unix ms)
   */
  public record Entry(
      long count,
      Denial.Reason reason,
      String context,
      String object,
      String username,
      String clientInfo,
      long entryId,
      long createdMillis,
      long updatedMillis) {}

  private final LinkedList<Entry> entries = new LinkedList<>();
  private long nextEntryId;
  private final LongAdder[] denied = new LongAdder[Denial.Reason.values().length];

  /** Creates an empty log. */
  public AclLog() {
    for (int i = 0; i < denied.length; i++) {
      denied[i] = new LongAdder();
    }
  }

  /**
   * Records a denial, as Redis's addACLLogEntry.
   *
   * @param maxLength acllog-max-len: the most entries kept (0: none)
   */
  public synchronized void add(
      Denial.Reason reason,
      String context,
      String object,
      String username,
      String clientInfo,
      long nowMillis,
      long maxLength) {
    denied[reason.ordinal()].increment();
    if (maxLength == 0) {
      trim(0);
      return;
    }
    int scanned = 0;
    for (Iterator<Entry> it = entries.iterator(); it.hasNext() && scanned < GROUPING_SCAN; ) {
      Entry entry = it.next();
      scanned++;
      if (entry.reason() == reason
          && entry.context().equals(context)
          && Math.abs(entry.updatedMillis() - nowMillis) <= GROUPING_MILLIS
          && entry.object().equals(object)
          && entry.username().equals(username)) {
        it.remove();
        entries.addFirst(
            new Entry(
                entry.count() + 1,
                reason,
                context,
                object,
                username,
                clientInfo,
                entry.entryId(),
                entry.createdMillis(),
                nowMillis));
        return;
      }
    }
    entries.addFirst(
        new Entry(
            1, reason, context, object, username, clientInfo, nextEntryId++, nowMillis, nowMillis));
    trim(maxLength);
  }

  /** Drops the oldest entries beyond {@code maxLength} (also when CONFIG SET lowers it). */
  public synchronized void trim(long maxLength) {
    while (entries.size() > maxLength) {
      entries.removeLast();
    }
  }

  /** Returns the newest {@code count} entries, newest first. */
  public synchronized List<Entry> latest(long count) {
    List<Entry> latest = new ArrayList<>();
    for (Entry entry : entries) {
      if (latest.size() >= count) {
        break;
      }
      latest.add(entry);
    }
    return latest;
  }

  /** Empties the log (ACL LOG RESET); the counters stay. */
  public synchronized void reset() {
    entries.clear();
  }

  /** Returns how many denials of a reason there were since the start (INFO stats). */
  public long denied(Denial.Reason reason) {
    return denied[reason.ordinal()].sum();
  }
}
