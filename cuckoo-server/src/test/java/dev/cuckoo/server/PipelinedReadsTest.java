package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Pipelined CF.EXISTS and CF.MEXISTS answer exactly as the same requests sent one at a time: the
 * buckets a pipeline's reads will look at are loaded before they run (a hint), and whatever the
 * requests in between do to their keys (add, delete items, delete, expire, replace or rename the
 * key, switch database, queue in MULTI) must not change an answer.
 *
 * <p>Two servers get the same random requests: one request at a time, and in pipelines of random
 * lengths written at once. Every reply must be identical, and a reference model (the items added
 * and not deleted, per key) checks that no item that is in a filter is answered absent.
 */
@org.junit.jupiter.api.extension.ExtendWith(LeakCheck.class)
class PipelinedReadsTest {
  private static final String[] KEYS = {"k0", "k1", "k2", "small"};
  private static CuckooServer single;
  private static CuckooServer pipelined;

  @BeforeAll
  static void startServers() throws IOException {
    single = TestServers.start();
    pipelined = TestServers.start();
  }

  @AfterAll
  static void stopServers() {
    single.close();
    pipelined.close();
  }

  /** One request, and what the model expects of a membership reply (null: nothing checked). */
  private record Step(Object[] args, Object expected) {}

  @Test
  void pipelinedReads_randomRequests_answerAsOneAtATime() throws IOException {
    long seed = System.nanoTime();
    String context = "seed " + seed + " (replay: new Random(" + seed + "L))";
    Random random = new Random(seed);
    try (RespClient one = new RespClient(single.port());
        RespClient many = new RespClient(pipelined.port())) {
      for (RespClient client : List.of(one, many)) {
        assertEquals(new RespClient.Simple("OK"), client.call("FLUSHALL"), context);
      }
      Model model = new Model();
      int checked = 0;
      for (int round = 0; round < 300; round++) {
        List<Step> steps = new ArrayList<>();
        int length = 1 + random.nextInt(random.nextInt(4) == 0 ? 100 : 24);
        while (steps.size() < length) {
          model.next(random, steps);
        }
        ByteArrayOutputStream batch = new ByteArrayOutputStream();
        List<Object> expected = new ArrayList<>();
        for (Step step : steps) {
          expected.add(one.call(step.args()));
          batch.writeBytes(RespClient.encode(step.args()));
        }
        many.sendRaw(batch.toByteArray());
        for (int i = 0; i < steps.size(); i++) {
          Object reply = many.read();
          String where = context + ", round " + round + ", request " + i + " " + show(steps, i);
          assertEquals(describe(expected.get(i)), describe(reply), where);
          if (steps.get(i).expected() != null) {
            assertEquals(describe(steps.get(i).expected()), describe(reply), "model: " + where);
            checked++;
          }
        }
      }
      // the model knew the answer of many reads (absent keys, items added and not deleted)
      assertEquals(true, checked > 200, context + ": only " + checked + " answers checked");
    }
  }

  private static String show(List<Step> steps, int index) {
    StringBuilder text = new StringBuilder();
    for (Object arg : steps.get(index).args()) {
      String value = String.valueOf(arg);
      text.append(value, 0, Math.min(value.length(), 24)).append(' ');
    }
    return text.toString().trim();
  }

  /** Makes replies comparable with equals: bulk strings as text, lists element by element. */
  private static Object describe(Object reply) {
    if (reply instanceof byte[] bytes) {
      return "bulk:" + new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
    }
    if (reply instanceof List<?> list) {
      List<Object> described = new ArrayList<>();
      for (Object element : list) {
        described.add(describe(element));
      }
      return described;
    }
    return reply;
  }

  /**
   * The keys of databases 0 and 1 as a model: for each existing key, the items added and not
   * deleted (the filter answers 1 for those; other items may be false positives, not checked); a
   * key that is neither there nor unknown does not exist, so every read of it answers 0. Inside a
   * transaction the changes wait for EXEC.
   */
  private static final class Model {
    private final List<Map<String, Map<String, Integer>>> databases =
        List.of(new HashMap<>(), new HashMap<>());
    private final java.util.Set<String> unknown = new java.util.HashSet<>();
    private final List<Runnable> atExec = new ArrayList<>();
    private int db;
    private boolean inMulti;

    /** Applies a change now, or when EXEC runs the transaction being queued. */
    private void change(Runnable change) {
      if (inMulti) {
        atExec.add(change);
      } else {
        change.run();
      }
    }

    private Map<String, Integer> items(int database, String key) {
      return databases.get(database).get(key);
    }

    private boolean known(int database, String key) {
      return !unknown.contains(database + ":" + key);
    }

    /** Appends one random request (or a short transaction) to {@code steps}. */
    void next(Random random, List<Step> steps) {
      String key = KEYS[random.nextInt(KEYS.length)];
      int d = db;
      int choice = random.nextInt(inMulti ? 72 : 100);
      if (choice < 40) {
        String item = item(random);
        String name = random.nextInt(10) == 0 ? "cf.EXISTS" : "CF.EXISTS";
        steps.add(new Step(new Object[] {name, key, item}, membership(key, item)));
      } else if (choice < 52) {
        int count = 1 + random.nextInt(5);
        Object[] args = new Object[2 + count];
        args[0] = "CF.MEXISTS";
        args[1] = key;
        List<Object> expected = new ArrayList<>();
        boolean checked = true;
        for (int i = 0; i < count; i++) {
          String item = item(random);
          args[2 + i] = item;
          Object one = membership(key, item);
          checked &= one != null;
          expected.add(one);
        }
        steps.add(new Step(args, checked ? expected : null));
      } else if (choice < 70) {
        String item = item(random);
        steps.add(new Step(new Object[] {"CF.ADD", key, item}, null));
        change(
            () -> {
              if (known(d, key)) {
                Map<String, Integer> items =
                    databases.get(d).computeIfAbsent(key, k -> new HashMap<>());
                items.merge(item, 1, Integer::sum);
              }
            });
      } else if (choice < 72) {
        steps.add(new Step(new Object[] {"DEL", key}, null));
        change(() -> gone(d, key));
      } else if (choice < 77) {
        // an item known to be there: deleting one copy leaves every other item found
        Map<String, Integer> items = items(d, key);
        String item =
            items != null && !items.isEmpty()
                ? items.keySet().stream().sorted().findFirst().orElseThrow()
                : item(random);
        steps.add(new Step(new Object[] {"CF.DEL", key, item}, null));
        if (items == null || !items.containsKey(item)) {
          // an item never added may take another item's fingerprint away
          forget(d, key);
        } else if (items.merge(item, -1, Integer::sum) == 0) {
          items.remove(item);
        }
      } else if (choice < 80) {
        // a large filter (a chain of full links) except for the small key (the compact form)
        String capacity = key.equals("small") ? "100" : "100000";
        steps.add(new Step(new Object[] {"CF.RESERVE", key, capacity}, null));
        if (known(d, key) && items(d, key) == null) {
          databases.get(d).put(key, new HashMap<>());
        }
      } else if (choice < 84) {
        // an expiry in the past: the key is gone for the next request
        steps.add(new Step(new Object[] {"PEXPIREAT", key, "1"}, null));
        gone(d, key);
      } else if (choice < 88) {
        String from = KEYS[random.nextInt(KEYS.length)];
        steps.add(new Step(new Object[] {"RENAME", from, key}, null));
        if (!known(d, from)) {
          forget(d, key);
        } else if (items(d, from) != null && !from.equals(key)) {
          databases.get(d).put(key, databases.get(d).remove(from));
          unknown.remove(d + ":" + key);
        }
      } else if (choice < 91) {
        int target = random.nextInt(2);
        steps.add(new Step(new Object[] {"SELECT", String.valueOf(target)}, null));
        db = target;
      } else if (choice < 95) {
        Object[][] others = {{"PING"}, {"DBSIZE"}, {"EXISTS", key}, {"ECHO", "x"}, {"TYPE", key}};
        steps.add(new Step(others[random.nextInt(others.length)], null));
      } else {
        steps.add(new Step(new Object[] {"MULTI"}, null));
        inMulti = true;
        int queued = 1 + random.nextInt(4);
        for (int i = 0; i < queued; i++) {
          next(random, steps);
        }
        steps.add(new Step(new Object[] {"EXEC"}, null));
        inMulti = false;
        atExec.forEach(Runnable::run);
        atExec.clear();
      }
    }

    /** Notes that the key does not exist. */
    private void gone(int database, String key) {
      databases.get(database).remove(key);
      unknown.remove(database + ":" + key);
    }

    /** Forgets what the key holds: its reads are no longer checked until it is deleted. */
    private void forget(int database, String key) {
      databases.get(database).remove(key);
      unknown.add(database + ":" + key);
    }

    /** Returns what a read must answer (1 or 0), or null if the model does not know. */
    private Object membership(String key, String item) {
      if (inMulti) {
        return null;
      }
      Map<String, Integer> items = items(db, key);
      if (items != null) {
        return items.getOrDefault(item, 0) > 0 ? 1L : null;
      }
      return known(db, key) ? 0L : null;
    }

    private static String item(Random random) {
      if (random.nextInt(200) == 0) {
        // longer than what one look ahead reads: the requests after it are shown on a later look
        return "big" + "x".repeat(20_000 + random.nextInt(1000));
      }
      if (random.nextInt(50) == 0) {
        return "";
      }
      return "i" + random.nextInt(60);
    }
  }
}
