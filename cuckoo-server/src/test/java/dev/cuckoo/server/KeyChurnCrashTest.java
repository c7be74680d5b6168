package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kill -9 while keys come and go under snapshots: clients pipeline CF.ADD, CF.DEL, DEL, UNLINK,
 * RENAME, MOVE, PEXPIRE (far and immediate), PERSIST, transactions and the pattern {@code CF.DEL k
 * x; DEL k; CF.ADD new x}; one client owns two databases and flushes and swaps them; a BGSAVE loop
 * and automatic rewrites run meanwhile. After every kill the server must start again without {@code
 * --repair-log} and hold exactly what was acknowledged.
 *
 * <p>Each client owns its own key names (and the database client its two databases), so its keys
 * are a function of the prefix of its commands the server applied: the commands acknowledged, and
 * perhaps some of those sent after them whose replies the kill cut off. The check finds a prefix
 * between the two whose model equals what the restarted server holds (keys, items, counts, expiry),
 * and continues from it. The seed is printed and can be set with {@code -Dcuckoo.churn.seed=N};
 * {@code -Dcuckoo.churn.rounds=N} sets the rounds of the default test, the {@code slow} one runs
 * for {@code -Dcuckoo.churn.seconds} (default 300).
 */
@ExtendWith(LeakCheck.class)
class KeyChurnCrashTest {
  private static final int CLIENTS = 4;
  private static final int PIPELINE = 16;
  private static final long FAR_MILLIS = 100_000_000L;
  private static final int FLUSH_DB = 8;
  private static final int SWAP_DB = 9;

  @TempDir Path dir;

  @Test
  void killMinus9_keysChurnUnderSnapshots_restartsWithoutRepairHoldingWhatWasAcknowledged()
      throws Exception {
    soak(Integer.getInteger("cuckoo.churn.rounds", 4), Long.MAX_VALUE);
  }

  @Test
  @Tag("slow")
  void killMinus9_minutesOfChurn_restartsWithoutRepairHoldingWhatWasAcknowledged()
      throws Exception {
    soak(Integer.MAX_VALUE, Long.getLong("cuckoo.churn.seconds", 300) * 1_000_000_000L);
  }

  private void soak(int rounds, long nanos) throws Exception {
    long seed = Long.getLong("cuckoo.churn.seed", System.nanoTime());
    // printed first, so that a run that fails is named even when it fails outside an assertion
    System.out.printf(
        "KeyChurnCrashTest: seed %d (-Dcuckoo.churn.seed=%d repeats it)%n", seed, seed);
    Random random = new Random(seed);
    Path data = dir.resolve("data");
    List<Model> models = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      models.add(new Model("c" + c + ":", c == 0));
    }
    long started = System.nanoTime();
    long acknowledged = 0;
    long inFlight = 0;
    long appliedInFlight = 0;
    int round = 0;
    for (; round < rounds && System.nanoTime() - started < nanos; round++) {
      String where = "seed " + seed + " round " + round;
      Path output = dir.resolve("child-" + round + ".out");
      // the files as the kill left them, kept if what the server then holds is wrong
      Path lastStart = dir.resolve("last-start");
      deleteTree(lastStart);
      copyTree(data, lastStart);
      // the start itself is the first check: a refusal to start fails here with the child's output
      try (ChildServer child =
          startKeepingFailure(
              where,
              data,
              output,
              "--appendfsync",
              "always",
              "--threads",
              "2",
              "--auto-aof-rewrite-min-size",
              "8192",
              "--auto-aof-rewrite-percentage",
              "5")) {
        try (RespClient client = new RespClient(child.port())) {
          for (Model model : models) {
            appliedInFlight += model.settle(client, where);
          }
        } catch (AssertionError wrong) {
          Path kept = keptCopy(where);
          copyTree(lastStart, kept);
          throw new AssertionError(
              wrong.getMessage() + "; the files the server started from are kept in " + kept,
              wrong);
        }
        List<Worker> workers = new ArrayList<>();
        for (Model model : models) {
          workers.add(new Worker(child.port(), model, new Random(random.nextLong())));
        }
        Thread saver = new Thread(() -> bgsaveLoop(child.port()), "churn-bgsave");
        workers.forEach(Thread::start);
        saver.start();
        Thread.sleep(300 + random.nextInt(1200));
        child.kill();
        saver.join(10_000);
        for (Worker worker : workers) {
          worker.join(10_000);
          assertTrue(!worker.isAlive(), where + ": a client did not stop");
          assertEquals(List.of(), worker.unexpected, where + ": unexpected replies");
          acknowledged += worker.model.acknowledgedThisRound;
          inFlight += worker.model.sent.size() - worker.model.acknowledgedThisRound;
        }
      }
    }
    Path output = dir.resolve("child-final.out");
    try (ChildServer child = startKeepingFailure("seed " + seed + " final", data, output);
        RespClient client = new RespClient(child.port())) {
      for (Model model : models) {
        appliedInFlight += model.settle(client, "seed " + seed + " final");
      }
    }
    System.out.printf(
        "KeyChurnCrashTest (seed %d): %d kill rounds in %d s, %d commands acknowledged, %d in"
            + " flight at the kills (%d of them applied), 0 acknowledged lost, every restart"
            + " without repair%n",
        seed,
        round,
        (System.nanoTime() - started) / 1_000_000_000L,
        acknowledged,
        inFlight,
        appliedInFlight);
    assertTrue(acknowledged > 0, "seed " + seed + ": nothing was acknowledged");
  }

  /**
   * Starts a child server on the data directory; if it refuses to start, keeps a copy of the
   * directory under target/ (the temporary one is deleted) and names the seed, round and copy.
   */
  private static ChildServer startKeepingFailure(
      String where, Path data, Path output, String... options)
      throws IOException, InterruptedException {
    List<String> arguments = new ArrayList<>(List.of("--dir", data.toString()));
    arguments.addAll(Arrays.asList(options));
    try {
      return ChildServer.start("256m", output, arguments.toArray(new String[0]));
    } catch (IOException refused) {
      Path kept = keptCopy(where);
      copyTree(data, kept);
      throw new IOException(
          where + ": the server refused to start; its data is kept in " + kept, refused);
    }
  }

  private static Path keptCopy(String where) {
    return Path.of("target", "keychurn-failure-" + where.replaceAll("[^A-Za-z0-9]+", "-"))
        .toAbsolutePath();
  }

  private static void copyTree(Path from, Path to) throws IOException {
    if (!Files.exists(from)) {
      return;
    }
    try (Stream<Path> files = Files.walk(from)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Path copy = to.resolve(from.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(copy);
        } else {
          Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
  }

  private static void bgsaveLoop(int port) {
    try (RespClient client = new RespClient(port)) {
      while (true) {
        client.call("BGSAVE");
        Thread.sleep(20);
      }
    } catch (IOException e) {
      // the server was killed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A command of the model and the reply it must get. */
  private record Command(String[] args, Object reply) {}

  /**
   * One client's keys: per database and name, the items its filter holds and whether it has an
   * expiry. Commands are generated from the model's state, so each reply is known in advance.
   */
  private static final class Model {
    final String prefix;
    final boolean ownsDatabases;
    // the commands sent this round, and states.get(i): this client's keys after the first i
    final List<Command> sent = new ArrayList<>();
    final List<Map<Integer, Map<String, KeyState>>> states = new ArrayList<>();
    volatile int acknowledgedThisRound;
    long acknowledged;
    long names;
    // the connection's state as the commands sent so far leave it
    private int selected;
    private List<String[]> queued;

    Model(String prefix, boolean ownsDatabases) {
      this.prefix = prefix;
      this.ownsDatabases = ownsDatabases;
      states.add(new TreeMap<>());
    }

    int[] databases() {
      return ownsDatabases ? new int[] {0, 1, FLUSH_DB, SWAP_DB} : new int[] {0, 1};
    }

    String fresh(String kind) {
      return prefix + kind + names++;
    }

    /** Starts a round on a new connection. */
    void newConnection() {
      selected = 0;
      queued = null;
    }

    /**
     * Matches what the server holds against the states after each prefix of the sent commands, from
     * the acknowledged ones to all of them, and continues from the one it holds. Returns how many
     * commands in flight were applied.
     */
    int settle(RespClient client, String where) throws IOException {
      Map<Integer, Map<String, KeyState>> observed = observe(client, where);
      int acked = acknowledgedThisRound;
      acknowledged += acked;
      for (int i = states.size() - 1; i >= acked; i--) {
        Map<Integer, Map<String, KeyState>> candidate = states.get(i);
        if (matches(client, candidate, observed)) {
          sent.clear();
          states.clear();
          states.add(candidate);
          acknowledgedThisRound = 0;
          return i - acked;
        }
      }
      throw new AssertionError(
          where
              + ": "
              + prefix
              + " holds "
              + observed
              + " but acknowledged "
              + states.get(acked)
              + " (then "
              + (sent.size() - acked)
              + " commands in flight: "
              + sent.subList(acked, sent.size()).stream()
                  .map(c -> Arrays.toString(c.args()))
                  .toList()
              + ")");
    }

    /** Lists the keys of this client with their item counts and expiry (items checked later). */
    private Map<Integer, Map<String, KeyState>> observe(RespClient client, String where)
        throws IOException {
      Map<Integer, Map<String, KeyState>> observed = new TreeMap<>();
      for (int db : databases()) {
        client.call("SELECT", db);
        Map<String, KeyState> inDb = new TreeMap<>();
        String pattern = db == FLUSH_DB || db == SWAP_DB ? "*" : prefix + "*";
        for (Object name : (List<?>) client.call("KEYS", pattern)) {
          String key = RespClient.text(name);
          Object reply = client.call("CF.INFO", key);
          if (!(reply instanceof List<?> info)) {
            throw new AssertionError(
                where
                    + ": KEYS "
                    + pattern
                    + " in database "
                    + db
                    + " listed "
                    + key
                    + " but CF.INFO answered "
                    + reply
                    + " (PTTL "
                    + client.call("PTTL", key)
                    + ", EXISTS "
                    + client.call("EXISTS", key)
                    + ")");
          }
          long items = (Long) info.get(7);
          long ttl = (Long) client.call("PTTL", key);
          KeyState observedKey = new KeyState(new TreeSet<>(), ttl > 0);
          observedKey.count = items;
          inDb.put(key, observedKey);
        }
        if (!inDb.isEmpty()) {
          observed.put(db, inDb);
        }
      }
      client.call("SELECT", 0);
      return observed;
    }

    private boolean matches(
        RespClient client,
        Map<Integer, Map<String, KeyState>> model,
        Map<Integer, Map<String, KeyState>> observed)
        throws IOException {
      if (!model.keySet().equals(observed.keySet())) {
        return false;
      }
      for (Map.Entry<Integer, Map<String, KeyState>> db : model.entrySet()) {
        Map<String, KeyState> seen = observed.get(db.getKey());
        if (!db.getValue().keySet().equals(seen.keySet())) {
          return false;
        }
        for (Map.Entry<String, KeyState> key : db.getValue().entrySet()) {
          KeyState expected = key.getValue();
          KeyState actual = seen.get(key.getKey());
          if (expected.items.size() != actual.count || expected.expiring != actual.expiring) {
            return false;
          }
          if (!expected.items.isEmpty()) {
            client.call("SELECT", db.getKey());
            Object[] command = new Object[expected.items.size() + 2];
            command[0] = "CF.MEXISTS";
            command[1] = key.getKey();
            int i = 2;
            for (String item : expected.items) {
              command[i++] = item;
            }
            List<?> reply = (List<?>) client.call(command);
            client.call("SELECT", 0);
            for (Object one : reply) {
              if (!Long.valueOf(1).equals(one)) {
                return false;
              }
            }
          }
        }
      }
      return true;
    }

    /** Picks the next commands (a few for a pattern), records them as sent and returns them. */
    List<Command> next(Random random) {
      List<Command> batch = new ArrayList<>();
      Map<Integer, Map<String, KeyState>> state = states.get(states.size() - 1);
      for (String[] args : pick(state, random)) {
        Object[] reply = {null};
        state = apply(state, args, reply);
        Command command = new Command(args, reply[0]);
        sent.add(command);
        states.add(state);
        batch.add(command);
      }
      return batch;
    }

    private List<String[]> pick(Map<Integer, Map<String, KeyState>> state, Random random) {
      int db = random.nextInt(2);
      Map<String, KeyState> inDb = state.getOrDefault(db, Map.of());
      List<String> names = new ArrayList<>(inDb.keySet());
      names.removeIf(name -> !name.startsWith(prefix));
      String existing = names.isEmpty() ? null : names.get(random.nextInt(names.size()));
      String select = Integer.toString(db);
      int choice = random.nextInt(ownsDatabases ? 16 : 14);
      if (names.size() > 40 && random.nextBoolean()) {
        // keeps the model small: its states are copied per command
        choice = 13;
      }
      if (existing == null || choice < 4) {
        String key = existing != null && random.nextBoolean() ? existing : fresh("k");
        return List.of(sel(select), a("CF.ADD", key, fresh("i")));
      }
      KeyState key = inDb.get(existing);
      switch (choice) {
        case 4:
        case 5:
          if (!key.items.isEmpty()) {
            return List.of(sel(select), a("CF.DEL", existing, key.items.first()));
          }
          return List.of(sel(select), a("DEL", existing));
        case 6:
          if (!key.items.isEmpty()) {
            // the pattern that once left a key in neither the snapshot nor a log
            return List.of(
                sel(select),
                a("CF.DEL", existing, key.items.first()),
                a("DEL", existing),
                a("CF.ADD", fresh("k"), fresh("i")));
          }
          return List.of(sel(select), a("UNLINK", existing));
        case 7:
          return List.of(sel(select), a("RENAME", existing, fresh("r")));
        case 8:
          return List.of(sel(select), a("MOVE", existing, Integer.toString(1 - db)));
        case 9:
          return List.of(
              sel(select),
              a("PEXPIRE", existing, Long.toString(FAR_MILLIS + random.nextInt(1000))));
        case 10:
          return List.of(sel(select), key.expiring ? a("PERSIST", existing) : a("DEL", existing));
        case 11:
          // expires at once: deleted by the expiry cycle or by the next command that meets it
          return List.of(sel(select), a("PEXPIRE", existing, "1"));
        case 12:
          return List.of(
              sel(select),
              a("MULTI"),
              a("CF.ADD", existing, fresh("i")),
              a("DEL", existing),
              a("CF.ADD", existing, fresh("i")),
              a("EXEC"));
        case 13:
          return List.of(sel(select), a("UNLINK", existing));
        case 14:
          return List.of(
              sel(Integer.toString(FLUSH_DB)),
              a("CF.ADD", fresh("k"), fresh("i")),
              a("CF.ADD", fresh("k"), fresh("i")),
              random.nextInt(4) == 0 ? a("FLUSHDB") : a("PING"));
        default:
          return List.of(
              sel(Integer.toString(SWAP_DB)),
              a("CF.ADD", fresh("k"), fresh("i")),
              a("SWAPDB", Integer.toString(FLUSH_DB), Integer.toString(SWAP_DB)));
      }
    }

    private static String[] sel(String db) {
      return new String[] {"SELECT", db};
    }

    private static String[] a(String... args) {
      return args;
    }

    /** Returns the state after the command and puts the reply it gets in {@code reply[0]}. */
    Map<Integer, Map<String, KeyState>> apply(
        Map<Integer, Map<String, KeyState>> state, String[] args, Object[] reply) {
      Map<Integer, Map<String, KeyState>> next = copy(state);
      String name = args[0];
      if (queued != null && !name.equals("EXEC")) {
        queued.add(args);
        reply[0] = new RespClient.Simple("QUEUED");
        return next;
      }
      switch (name) {
        case "SELECT":
          selected = Integer.parseInt(args[1]);
          reply[0] = new RespClient.Simple("OK");
          return next;
        case "MULTI":
          queued = new ArrayList<>();
          reply[0] = new RespClient.Simple("OK");
          return next;
        case "EXEC":
          {
            List<Object> replies = new ArrayList<>();
            List<String[]> commands = queued;
            queued = null;
            for (String[] command : commands) {
              Object[] one = new Object[1];
              next = apply(next, command, one);
              replies.add(one[0]);
            }
            reply[0] = replies;
            return next;
          }
        case "PING":
          reply[0] = new RespClient.Simple("PONG");
          return next;
        default:
          break;
      }
      Map<String, KeyState> db = next.computeIfAbsent(selected, d -> new TreeMap<>());
      switch (name) {
        case "CF.ADD":
          db.computeIfAbsent(args[1], k -> new KeyState(new TreeSet<>(), false)).items.add(args[2]);
          reply[0] = 1L;
          break;
        case "CF.DEL":
          db.get(args[1]).items.remove(args[2]);
          reply[0] = 1L;
          break;
        case "DEL":
        case "UNLINK":
          reply[0] = db.remove(args[1]) == null ? 0L : 1L;
          break;
        case "RENAME":
          db.put(args[2], db.remove(args[1]));
          reply[0] = new RespClient.Simple("OK");
          break;
        case "MOVE":
          next.computeIfAbsent(Integer.parseInt(args[2]), d -> new TreeMap<>())
              .put(args[1], db.remove(args[1]));
          reply[0] = 1L;
          break;
        case "PEXPIRE":
          if (args[2].equals("1")) {
            db.remove(args[1]);
          } else {
            db.get(args[1]).expiring = true;
          }
          reply[0] = 1L;
          break;
        case "PERSIST":
          db.get(args[1]).expiring = false;
          reply[0] = 1L;
          break;
        case "FLUSHDB":
          db.clear();
          reply[0] = new RespClient.Simple("OK");
          break;
        case "SWAPDB":
          {
            Map<String, KeyState> a = next.remove(FLUSH_DB);
            Map<String, KeyState> b = next.remove(SWAP_DB);
            if (b != null) {
              next.put(FLUSH_DB, b);
            }
            if (a != null) {
              next.put(SWAP_DB, a);
            }
            reply[0] = new RespClient.Simple("OK");
            break;
          }
        default:
          throw new IllegalArgumentException(Arrays.toString(args));
      }
      next.values().removeIf(Map::isEmpty);
      return next;
    }

    private static Map<Integer, Map<String, KeyState>> copy(
        Map<Integer, Map<String, KeyState>> state) {
      Map<Integer, Map<String, KeyState>> copy = new TreeMap<>();
      state.forEach(
          (db, inDb) -> {
            Map<String, KeyState> keys = new TreeMap<>();
            inDb.forEach((name, key) -> keys.put(name, key.copy()));
            copy.put(db, keys);
          });
      return copy;
    }
  }

  /** A key of the model: its items and whether it has a (far) expiry. */
  private static final class KeyState {
    final TreeSet<String> items;
    boolean expiring;
    long count;

    KeyState(TreeSet<String> items, boolean expiring) {
      this.items = items;
      this.expiring = expiring;
    }

    KeyState copy() {
      return new KeyState(new TreeSet<>(items), expiring);
    }

    @Override
    public String toString() {
      return (items.isEmpty() ? count + " items" : items.toString())
          + (expiring ? " (expiring)" : "");
    }
  }

  /** One client: pipelines its model's commands until the connection dies. */
  private static final class Worker extends Thread {
    final Model model;
    final Random random;
    final int port;
    final List<String> unexpected = new ArrayList<>();

    Worker(int port, Model model, Random random) {
      super("churn-" + model.prefix);
      this.port = port;
      this.model = model;
      this.random = random;
      model.newConnection();
    }

    @Override
    public void run() {
      try (RespClient client = new RespClient(port)) {
        while (true) {
          List<Command> window = new ArrayList<>();
          while (window.size() < PIPELINE) {
            window.addAll(model.next(random));
          }
          for (Command command : window) {
            client.send((Object[]) command.args());
          }
          for (Command command : window) {
            Object reply = client.read();
            if (!same(command.reply(), reply)) {
              unexpected.add(
                  Arrays.toString(command.args())
                      + " -> "
                      + describe(reply)
                      + " (expected "
                      + describe(command.reply())
                      + ")");
              return;
            }
            model.acknowledgedThisRound++;
          }
        }
      } catch (IOException e) {
        // the server was killed
      }
    }
  }

  private static boolean same(Object expected, Object actual) {
    return describe(expected).equals(describe(actual));
  }

  private static String describe(Object reply) {
    if (reply instanceof byte[]) {
      return RespClient.text(reply);
    }
    if (reply instanceof List) {
      List<String> parts = new ArrayList<>();
      for (Object element : (List<?>) reply) {
        parts.add(describe(element));
      }
      return parts.toString();
    }
    return String.valueOf(reply);
  }
}
