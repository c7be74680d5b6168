package dev.cuckoo.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.RespClient;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.protocol.RespDecoder;
import dev.cuckoo.server.session.Session;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * When the look ahead loads buckets: for two or more items of CF.EXISTS / CF.MEXISTS on one
 * existing filter, on an authenticated connection, in the connection's database, and never while a
 * writer holds the key's stripe.
 */
class BucketPrefetchTest {
  private final Keyspace keyspace = new Keyspace();
  private final Authentication authentication = new Authentication(true);
  private final Session session = new Session(1, Reply.discarding(), authentication, false);
  private final BucketPrefetch prefetch = new BucketPrefetch(keyspace, session);

  private static byte[] name(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Stores a filter of {@code capacity} under the key in database 0, with the item "a". */
  private RedisCuckooFilter<byte[]> store(String key, long capacity) {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(capacity, 2, 20, 1);
    filter.add(name("a"));
    keyspace.put(new Key(name(key)), filter);
    return filter;
  }

  /** Feeds the requests to a decoder that shows them to the prefetch, in one read. */
  private void feed(Object[]... requests) {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    for (Object[] request : requests) {
      data.writeBytes(RespClient.encode(request));
    }
    RespDecoder decoder = new RespDecoder(1 << 20, 1 << 20, 1L << 30, authentication);
    decoder.lookahead(prefetch);
    EmbeddedChannel channel = new EmbeddedChannel(decoder);
    channel.writeInbound(Unpooled.wrappedBuffer(data.toByteArray()));
    int decoded = 0;
    while (channel.readInbound() != null) {
      decoded++;
    }
    assertEquals(requests.length, decoded);
    channel.finishAndReleaseAll();
  }

  private static Object[][] exists(String key, int count) {
    Object[][] requests = new Object[count][];
    for (int i = 0; i < count; i++) {
      requests[i] = new Object[] {"CF.EXISTS", key, "item" + i};
    }
    return requests;
  }

  @Test
  void pipeline_ofExistsOnOneFilter_loadsOnce() {
    store("big", 1_000_000);
    feed(exists("big", 16));
    assertEquals(1, prefetch.prefetches());
  }

  @Test
  void oneRequest_loadsNothing() {
    store("big", 1_000_000);
    feed(exists("big", 1));
    assertEquals(0, prefetch.prefetches());
  }

  @Test
  void mexists_ofTwoItems_loads() {
    store("big", 1_000_000);
    feed(new Object[] {"cf.mexists", "big", "x", "y"});
    assertEquals(1, prefetch.prefetches());
  }

  @Test
  void missingKey_orOtherDatabase_loadsNothing() {
    store("big", 1_000_000);
    feed(exists("absent", 8));
    session.db(1);
    feed(exists("big", 8));
    assertEquals(0, prefetch.prefetches());
  }

  @Test
  void keysThatChange_loadOncePerRunOfOneKey() {
    store("big", 1_000_000);
    store("other", 1_000_000);
    Object[][] first = exists("big", 3);
    Object[][] second = exists("other", 3);
    Object[][] third = exists("big", 2);
    Object[][] all = new Object[9][];
    System.arraycopy(first, 0, all, 0, 3);
    System.arraycopy(second, 0, all, 3, 3);
    all[6] = new Object[] {"PING"};
    System.arraycopy(third, 0, all, 7, 2);
    feed(all);
    // a PING between two requests on one key does not split them
    assertEquals(3, prefetch.prefetches());
  }

  @Test
  void otherCommandsAndWrongArity_loadNothing() {
    store("big", 1_000_000);
    feed(
        new Object[] {"CF.ADD", "big", "x"},
        new Object[] {"CF.ADD", "big", "y"},
        new Object[] {"CF.EXISTS", "big", "x", "extra"},
        new Object[] {"CF.EXISTS", "big"},
        new Object[] {"CF.EXISTSX", "big", "x"},
        new Object[] {"CF.COUNT", "big", "x"});
    assertEquals(0, prefetch.prefetches());
  }

  @Test
  void unauthenticated_loadsNothing() {
    store("big", 1_000_000);
    authentication.reset(false);
    feed(exists("big", 8));
    assertEquals(0, prefetch.prefetches());
  }

  @Test
  void writerHoldingTheStripe_isNotWaitedFor() throws InterruptedException {
    store("big", 1_000_000);
    Lock write = keyspace.lockFor(new Key(name("big")));
    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread writer =
        new Thread(
            () -> {
              write.lock();
              try {
                locked.countDown();
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                write.unlock();
              }
            });
    writer.start();
    locked.await();
    try {
      feed(exists("big", 8));
      assertEquals(0, prefetch.prefetches());
    } finally {
      release.countDown();
      writer.join();
    }
    feed(exists("big", 8));
    assertEquals(1, prefetch.prefetches());
  }

  @Test
  void prefetch_leavesFilterAndAnswersUnchanged() {
    RedisCuckooFilter<byte[]> filter = store("big", 1_000_000);
    String before = filter.toString();
    feed(exists("big", 16));
    assertEquals(1, prefetch.prefetches());
    assertEquals(before, filter.toString());
    assertEquals(true, filter.mightContain(name("a")));
    assertEquals(0, keyspace.hits() + keyspace.misses());
  }

  @Test
  void twoOtherRequestsInARow_endTheLook() {
    store("big", 1_000_000);
    Object[][] requests = new Object[7][];
    requests[0] = new Object[] {"CF.ADD", "big", "x"};
    requests[1] = new Object[] {"PING"};
    System.arraycopy(exists("big", 5), 0, requests, 2, 5);
    feed(requests);
    // the reads after two other requests were not looked at
    assertEquals(0, prefetch.prefetches());
    requests[1] = new Object[] {"CF.EXISTS", "big", "y"};
    feed(requests);
    assertEquals(1, prefetch.prefetches());
  }
}
