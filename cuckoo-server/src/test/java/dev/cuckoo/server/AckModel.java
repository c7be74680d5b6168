package dev.cuckoo.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What clients were told about their writes across kill -9 rounds: per key, the items whose CF.ADD
 * or CF.INSERT was acknowledged and not deleted since, and the counts CF.INFO must show.
 *
 * <p>Every item is distinct and is added at most once and deleted at most once, by the writer that
 * added it, so the filter's counters are exact (no multiset ambiguity; fingerprint collisions
 * within one filter link cannot remove another item, and keys never expand). After a crash, per
 * key: {@code items} ("Number of items inserted", adds minus deletes) lies between {@code base +
 * adds - dels - delsInFlight} and {@code base + adds - dels + addsInFlight}, and {@code deletes}
 * between {@code baseDeletes + dels} and that plus {@code delsInFlight}, where adds and dels count
 * acknowledged operations and "in flight" the operations sent whose reply never came (each may or
 * may not have happened). Every live item must answer CF.EXISTS 1. After each check the observed
 * counters become the new base, and items touched by an operation in flight become unknown: they
 * are never deleted and never checked again.
 */
final class AckModel {
  /** One key's known state. */
  static final class KeyState {
    final String name;
    final int capacity;

    /** Items added (acknowledged) and neither deleted nor being deleted. */
    final List<String> live = new ArrayList<>();

    /** Items stored or possibly stored, for keeping the filter far from full. */
    final AtomicInteger occupancy = new AtomicInteger();

    long baseItems;
    long baseDeletes;
    long adds;
    long dels;
    long addsInFlight;
    long delsInFlight;

    KeyState(String name, int capacity) {
      this.name = name;
      this.capacity = capacity;
    }

    /** Returns true while the key may take {@code count} more items (half its capacity). */
    boolean hasRoom(int count) {
      return occupancy.get() + count <= capacity / 2;
    }
  }

  /** What one verification found. */
  record Check(long liveItems, long lostItems, List<String> violations) {}

  private final Map<String, KeyState> keys = new LinkedHashMap<>();

  /** Adds a key whose CF.RESERVE was acknowledged (empty). */
  synchronized KeyState reserved(String name, int capacity) {
    KeyState key = new KeyState(name, capacity);
    keys.put(name, key);
    return key;
  }

  /**
   * Hands each key's live items to {@code writers} owners round-robin and returns, per writer, the
   * items it owns; the keys' live lists are empty until {@link #merge} returns them.
   */
  synchronized List<Map<String, List<String>>> distribute(int writers) {
    List<Map<String, List<String>>> owned = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      owned.add(new LinkedHashMap<>());
    }
    for (KeyState key : keys.values()) {
      for (int i = 0; i < key.live.size(); i++) {
        owned
            .get(i % writers)
            .computeIfAbsent(key.name, k -> new ArrayList<>())
            .add(key.live.get(i));
      }
      key.live.clear();
    }
    return owned;
  }

  /** Returns the keys known to exist. */
  synchronized List<KeyState> keys() {
    return new ArrayList<>(keys.values());
  }

  /** Records what a writer was told (called after the writers stopped). */
  synchronized void merge(CrashWriter writer) {
    for (KeyState key : writer.reservedKeys()) {
      keys.put(key.name, key);
    }
    for (Map.Entry<String, CrashWriter.Tally> entry : writer.tallies().entrySet()) {
      KeyState key = keys.get(entry.getKey());
      CrashWriter.Tally tally = entry.getValue();
      key.adds += tally.adds;
      key.dels += tally.dels;
      key.addsInFlight += tally.addsInFlight;
      key.delsInFlight += tally.delsInFlight;
      key.live.addAll(tally.live);
    }
  }

  /**
   * Checks a restarted server against the model, then takes what it found as the new base.
   *
   * @param round names the round in violation messages
   */
  synchronized Check verify(RespClient client, String round) throws IOException {
    long liveItems = 0;
    long lost = 0;
    List<String> violations = new ArrayList<>();
    for (KeyState key : keys.values()) {
      liveItems += key.live.size();
      Object info = client.call("CF.INFO", key.name);
      if (!(info instanceof List)) {
        lost += key.live.size() + key.adds + key.baseItems;
        violations.add(round + ": key " + key.name + " is gone (" + info + ")");
        continue;
      }
      long items = (Long) ((List<?>) info).get(7);
      long deletes = (Long) ((List<?>) info).get(9);
      long expected = key.baseItems + key.adds - key.dels;
      long low = expected - key.delsInFlight;
      long high = expected + key.addsInFlight;
      if (items < low || items > high) {
        violations.add(
            round
                + ": key "
                + key.name
                + " holds "
                + items
                + " items, expected "
                + low
                + ".."
                + high
                + " (base "
                + key.baseItems
                + ", acknowledged adds "
                + key.adds
                + ", dels "
                + key.dels
                + ", in flight adds "
                + key.addsInFlight
                + ", dels "
                + key.delsInFlight
                + ")");
      }
      long deletesLow = key.baseDeletes + key.dels;
      if (deletes < deletesLow || deletes > deletesLow + key.delsInFlight) {
        violations.add(
            round
                + ": key "
                + key.name
                + " counts "
                + deletes
                + " deletes, expected "
                + deletesLow
                + ".."
                + (deletesLow + key.delsInFlight));
      }
      lost += missing(client, key, round, violations);
      key.baseItems = items;
      key.baseDeletes = deletes;
      key.adds = 0;
      key.dels = 0;
      key.addsInFlight = 0;
      key.delsInFlight = 0;
    }
    return new Check(liveItems, lost, violations);
  }

  /** Returns how many live items of the key answer CF.MEXISTS 0 (in batches of 500). */
  private static long missing(
      RespClient client, KeyState key, String round, List<String> violations) throws IOException {
    long missing = 0;
    for (int from = 0; from < key.live.size(); from += 500) {
      List<String> batch = key.live.subList(from, Math.min(key.live.size(), from + 500));
      Object[] command = new Object[batch.size() + 2];
      command[0] = "CF.MEXISTS";
      command[1] = key.name;
      for (int i = 0; i < batch.size(); i++) {
        command[i + 2] = batch.get(i);
      }
      List<?> reply = (List<?>) client.call(command);
      for (int i = 0; i < batch.size(); i++) {
        if (!Long.valueOf(1).equals(reply.get(i))) {
          missing++;
          if (violations.size() < 20) {
            violations.add(
                round + ": acknowledged item " + batch.get(i) + " of " + key.name + " is missing");
          }
        }
      }
    }
    return missing;
  }
}
