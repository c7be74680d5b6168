package dev.cuckoo.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One client of a kill -9 round: sends random CF.ADD, CF.INSERT (NOCREATE), CF.DEL and CF.RESERVE
 * requests one at a time until the connection dies, and tallies what was acknowledged and what was
 * in flight when it died (see {@link AckModel}).
 *
 * <p>Items are named {@code prefix + counter}, so every item is new; a writer deletes only items it
 * owns (added by it, or handed to it at the start of the round), so two writers never race on one
 * item.
 */
final class CrashWriter implements Runnable {
  /** Capacity of the keys writers reserve. */
  static final int RESERVE_CAPACITY = 8192;

  /** Per key: what this writer was told, and the live items it owns. */
  static final class Tally {
    long adds;
    long dels;
    long addsInFlight;
    long delsInFlight;
    final List<String> live = new ArrayList<>();
  }

  private final int port;
  private final Random random;
  private final String prefix;
  private final List<AckModel.KeyState> keys;
  private final Map<String, Tally> tallies = new HashMap<>();
  private final List<AckModel.KeyState> reserved = new ArrayList<>();
  private final List<String> unexpected = new ArrayList<>();
  private long counter;
  private volatile long acknowledged;
  private long inFlight;

  /**
   * Creates a writer.
   *
   * @param keys the keys known to exist when the round starts
   * @param owned per key, the live items this writer may delete
   */
  CrashWriter(
      int port,
      long seed,
      String prefix,
      List<AckModel.KeyState> keys,
      Map<String, List<String>> owned) {
    this.port = port;
    this.random = new Random(seed);
    this.prefix = prefix;
    this.keys = new ArrayList<>(keys);
    for (AckModel.KeyState key : keys) {
      tally(key.name).live.addAll(owned.getOrDefault(key.name, List.of()));
    }
  }

  private Tally tally(String key) {
    return tallies.computeIfAbsent(key, k -> new Tally());
  }

  /** Returns per key what this writer was told (after it stopped). */
  Map<String, Tally> tallies() {
    return tallies;
  }

  /** Returns the keys this writer reserved with an acknowledged CF.RESERVE. */
  List<AckModel.KeyState> reservedKeys() {
    return reserved;
  }

  /** Returns replies that no write should get (errors, a failed delete). */
  List<String> unexpected() {
    return unexpected;
  }

  /** Returns the number of acknowledged writes so far. */
  long acknowledged() {
    return acknowledged;
  }

  /** Returns the number of writes in flight when the connection died (0 or 1). */
  long inFlight() {
    return inFlight;
  }

  @Override
  public void run() {
    try (RespClient client = new RespClient(port)) {
      while (true) {
        int choice = random.nextInt(100);
        if (choice < 2) {
          reserve(client);
        } else if (choice < 30) {
          if (!delete(client)) {
            add(client, 1);
          }
        } else if (choice < 45) {
          add(client, 1 + random.nextInt(4));
        } else {
          add(client, 1);
        }
      }
    } catch (IOException e) {
      // the server was killed: the request being sent or awaited is in flight
    }
  }

  private AckModel.KeyState keyWithRoom(int items) {
    for (int attempt = 0; attempt < 8; attempt++) {
      AckModel.KeyState key = keys.get(random.nextInt(keys.size()));
      if (key.hasRoom(items)) {
        return key;
      }
    }
    return null;
  }

  /** CF.ADD for one item, CF.INSERT key NOCREATE ITEMS for several. */
  private void add(RespClient client, int count) throws IOException {
    AckModel.KeyState key = keyWithRoom(count);
    if (key == null) {
      reserve(client);
      return;
    }
    Tally tally = tally(key.name);
    List<String> items = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      items.add(prefix + counter++);
    }
    key.occupancy.addAndGet(count);
    Object reply;
    tally.addsInFlight += count;
    inFlight = 1;
    if (count == 1) {
      reply = client.call("CF.ADD", key.name, items.get(0));
    } else {
      List<Object> command = new ArrayList<>(List.of("CF.INSERT", key.name, "NOCREATE", "ITEMS"));
      command.addAll(items);
      reply = client.call(command.toArray());
    }
    tally.addsInFlight -= count;
    inFlight = 0;
    boolean added =
        count == 1
            ? Long.valueOf(1).equals(reply)
            : reply instanceof List && ((List<?>) reply).stream().allMatch(Long.valueOf(1)::equals);
    if (!added) {
      unexpected.add("add " + items + " to " + key.name + ": " + describe(reply));
      return;
    }
    tally.adds += count;
    tally.live.addAll(items);
    acknowledged++;
  }

  /** CF.DEL of an owned live item; returns false if this writer owns none. */
  private boolean delete(RespClient client) throws IOException {
    List<Tally> candidates = new ArrayList<>();
    List<AckModel.KeyState> owners = new ArrayList<>();
    for (AckModel.KeyState key : keys) {
      Tally tally = tallies.get(key.name);
      if (tally != null && !tally.live.isEmpty()) {
        candidates.add(tally);
        owners.add(key);
      }
    }
    if (candidates.isEmpty()) {
      return false;
    }
    int pick = random.nextInt(candidates.size());
    Tally tally = candidates.get(pick);
    AckModel.KeyState key = owners.get(pick);
    // removed from the live list first: if the reply never comes the item is unknown
    String item = tally.live.remove(random.nextInt(tally.live.size()));
    tally.delsInFlight++;
    inFlight = 1;
    Object reply = client.call("CF.DEL", key.name, item);
    tally.delsInFlight--;
    inFlight = 0;
    if (!Long.valueOf(1).equals(reply)) {
      unexpected.add("delete " + item + " from " + key.name + ": " + describe(reply));
      return true;
    }
    tally.dels++;
    key.occupancy.decrementAndGet();
    acknowledged++;
    return true;
  }

  /** CF.RESERVE of a new key. */
  private void reserve(RespClient client) throws IOException {
    String name = prefix + "key" + counter++;
    inFlight = 1;
    Object reply = client.call("CF.RESERVE", name, RESERVE_CAPACITY, "BUCKETSIZE", 2);
    inFlight = 0;
    if (!new RespClient.Simple("OK").equals(reply)) {
      unexpected.add("reserve " + name + ": " + describe(reply));
      return;
    }
    AckModel.KeyState key = new AckModel.KeyState(name, RESERVE_CAPACITY);
    reserved.add(key);
    keys.add(key);
    acknowledged++;
  }

  private static String describe(Object reply) {
    return reply instanceof byte[] ? RespClient.text(reply) : String.valueOf(reply);
  }
}
