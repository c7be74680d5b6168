package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Push;
import dev.cuckoo.server.RespClient.Simple;
import dev.cuckoo.server.config.OutputBufferLimit;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SUBSCRIBE, PSUBSCRIBE, PUBLISH, PUBSUB and the subscribed state over TCP, compared with the
 * replies Redis 7/8 sends (pubsub.c, server.c processCommand, RESP2 arrays and RESP3 pushes).
 */
@ExtendWith(LeakCheck.class)
class PubSubTest {
  private static final Simple OK = new Simple("OK");

  /** Returns a reply's elements as text (bulk strings) or as they are (integers, null). */
  private static List<Object> texts(Object reply) {
    List<?> elements = reply instanceof Push push ? push.elements() : (List<?>) reply;
    List<Object> texts = new ArrayList<>();
    for (Object element : elements) {
      texts.add(
          element instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : element);
    }
    return texts;
  }

  private static List<Object> frame(Object... elements) {
    return Arrays.asList(elements);
  }

  @Test
  void subscribe_twoChannels_confirmsEachWithTheConnectionsCount() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      client.send("SUBSCRIBE", "a", "b", "a");
      assertEquals(frame("subscribe", "a", 1L), texts(client.read()));
      assertEquals(frame("subscribe", "b", 2L), texts(client.read()));
      assertEquals(frame("subscribe", "a", 2L), texts(client.read()));
      client.send("PSUBSCRIBE", "n*");
      assertEquals(frame("psubscribe", "n*", 3L), texts(client.read()));
      client.send("UNSUBSCRIBE", "a", "zzz");
      assertEquals(frame("unsubscribe", "a", 2L), texts(client.read()));
      assertEquals(frame("unsubscribe", "zzz", 2L), texts(client.read()));
      client.send("UNSUBSCRIBE");
      assertEquals(frame("unsubscribe", "b", 1L), texts(client.read()));
      client.send("PUNSUBSCRIBE");
      assertEquals(frame("punsubscribe", "n*", 0L), texts(client.read()));
      // nothing left: one confirmation with a null name, and the connection is normal again
      client.send("UNSUBSCRIBE");
      assertEquals(frame("unsubscribe", null, 0L), texts(client.read()));
      assertEquals(OK, client.call("CLIENT", "SETNAME", "x"));
    }
  }

  @Test
  void publish_channelAndPatternSubscribers_eachReceiveAndAreCounted() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient channel = new RespClient(server.port());
        RespClient pattern = new RespClient(server.port());
        RespClient publisher = new RespClient(server.port())) {
      channel.send("SUBSCRIBE", "news.tech");
      channel.read();
      pattern.send("PSUBSCRIBE", "news.*", "*tech");
      pattern.read();
      pattern.read();
      assertEquals(3L, publisher.call("PUBLISH", "news.tech", "hello"));
      assertEquals(frame("message", "news.tech", "hello"), texts(channel.read()));
      Set<List<Object>> patternFrames = Set.of(texts(pattern.read()), texts(pattern.read()));
      assertEquals(
          Set.of(
              frame("pmessage", "news.*", "news.tech", "hello"),
              frame("pmessage", "*tech", "news.tech", "hello")),
          patternFrames);
      assertEquals(1L, publisher.call("PUBLISH", "news.sport", "goal"));
      assertEquals(frame("pmessage", "news.*", "news.sport", "goal"), texts(pattern.read()));
      assertEquals(0L, publisher.call("PUBLISH", "weather", "rain"));
      assertThrows(SocketTimeoutException.class, () -> channel.readWithin(Duration.ofMillis(200)));
    }
  }

  @Test
  void subscribedResp2_otherCommands_refusedWithRedisErrorAndPingAnswersAnArray()
      throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      client.send("SUBSCRIBE", "c");
      client.read();
      assertEquals(
          new Err(
              "ERR Can't execute 'cf.exists': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING /"
                  + " QUIT / RESET are allowed in this context"),
          client.call("CF.EXISTS", "k", "x"));
      assertEquals(
          new Err(
              "ERR Can't execute 'client|list': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING /"
                  + " QUIT / RESET are allowed in this context"),
          client.call("CLIENT", "LIST"));
      assertEquals(frame("pong", ""), texts(client.call("PING")));
      assertEquals(frame("pong", "hi"), texts(client.call("PING", "hi")));
      assertEquals(new Simple("RESET"), client.call("RESET"));
      assertEquals(new Simple("PONG"), client.call("PING"));
      assertEquals(0L, client.call("PUBLISH", "c", "after reset"));
    }
  }

  @Test
  void subscribedResp3_confirmationsAndMessagesArePushes_otherCommandsRun() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port());
        RespClient publisher = new RespClient(server.port())) {
      client.call("HELLO", "3");
      client.send("SUBSCRIBE", "c");
      Object confirmation = client.read();
      assertInstanceOf(Push.class, confirmation);
      assertEquals(frame("subscribe", "c", 1L), texts(confirmation));
      assertEquals(new Simple("PONG"), client.call("PING"));
      assertEquals(true, client.call("CF.ADD", "f", "x"));
      assertEquals(1L, publisher.call("PUBLISH", "c", "m"));
      Object message = client.read();
      assertInstanceOf(Push.class, message);
      assertEquals(frame("message", "c", "m"), texts(message));
      // a subscriber that publishes to itself gets the message after PUBLISH's reply, and after
      // EXEC's whole reply in a transaction, as in Redis 7.2 and later
      client.send("PUBLISH", "c", "self");
      assertEquals(1L, client.read());
      assertEquals(frame("message", "c", "self"), texts(client.read()));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(new Simple("QUEUED"), client.call("PUBLISH", "c", "in exec"));
      assertEquals(new Simple("QUEUED"), client.call("PING"));
      assertEquals(List.of(1L, new Simple("PONG")), client.call("EXEC"));
      assertEquals(frame("message", "c", "in exec"), texts(client.read()));
      client.send("UNSUBSCRIBE");
      assertEquals(frame("unsubscribe", "c", 0L), texts(client.read()));
    }
  }

  @Test
  void pubsubIntrospection_channelsNumsubNumpat_infoAndClientList() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient first = new RespClient(server.port());
        RespClient second = new RespClient(server.port());
        RespClient admin = new RespClient(server.port())) {
      first.send("SUBSCRIBE", "alpha", "beta");
      first.read();
      first.read();
      second.send("SUBSCRIBE", "alpha");
      second.read();
      second.send("PSUBSCRIBE", "al*");
      second.read();
      assertEquals(Set.of("alpha", "beta"), Set.copyOf(texts(admin.call("PUBSUB", "CHANNELS"))));
      assertEquals(frame("beta"), texts(admin.call("PUBSUB", "CHANNELS", "b*")));
      assertEquals(
          frame("alpha", 2L, "beta", 1L, "none", 0L),
          texts(admin.call("PUBSUB", "NUMSUB", "alpha", "beta", "none")));
      assertEquals(List.of(), admin.call("PUBSUB", "NUMSUB"));
      assertEquals(1L, admin.call("PUBSUB", "NUMPAT"));
      assertEquals(
          new Err(
              "ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP."),
          admin.call("PUBSUB", "CHANNELS", "a", "b"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'pubsub|numpat' command"),
          admin.call("PUBSUB", "NUMPAT", "x"));
      assertEquals("2", admin.infoField("pubsub_channels"));
      assertEquals("1", admin.infoField("pubsub_patterns"));
      assertEquals("2", admin.infoField("pubsub_clients"));
      String list = RespClient.text(admin.call("CLIENT", "LIST"));
      assertTrue(list.contains(" flags=P db=0 sub=2 psub=0 ssub=0 "), list);
      assertTrue(list.contains(" flags=P db=0 sub=1 psub=1 ssub=0 "), list);
      assertTrue(list.contains(" flags=N db=0 sub=0 psub=0 ssub=0 "), list);
      assertEquals(
          2, RespClient.text(admin.call("CLIENT", "LIST", "TYPE", "pubsub")).split("\n").length);
      assertEquals(
          1, RespClient.text(admin.call("CLIENT", "LIST", "TYPE", "normal")).split("\n").length);
    }
  }

  @Test
  void clientKillTypePubsub_killsOnlySubscribers_normalSparesThem() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient subscriber = new RespClient(server.port());
        RespClient plain = new RespClient(server.port());
        RespClient admin = new RespClient(server.port())) {
      subscriber.send("SUBSCRIBE", "__sentinel__:hello");
      subscriber.read();
      assertEquals(new Simple("PONG"), plain.call("PING"));
      assertEquals(0L, admin.call("CLIENT", "KILL", "TYPE", "master"));
      assertEquals(0L, admin.call("CLIENT", "KILL", "TYPE", "replica"));
      assertEquals(1L, admin.call("CLIENT", "KILL", "TYPE", "normal"));
      assertTrue(plain.closedByServer());
      assertEquals(1L, admin.call("CLIENT", "KILL", "TYPE", "pubsub"));
      assertTrue(subscriber.closedByServer());
      assertEquals("0", admin.infoField("pubsub_channels"));
      assertEquals("0", admin.infoField("pubsub_clients"));
    }
  }

  @Test
  void publishInsideMulti_deliveredAtExec() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient subscriber = new RespClient(server.port());
        RespClient publisher = new RespClient(server.port())) {
      subscriber.send("SUBSCRIBE", "c");
      subscriber.read();
      assertEquals(OK, publisher.call("MULTI"));
      assertEquals(new Simple("QUEUED"), publisher.call("PUBLISH", "c", "one"));
      assertThrows(
          SocketTimeoutException.class, () -> subscriber.readWithin(Duration.ofMillis(200)));
      assertEquals(List.of(1L), publisher.call("EXEC"));
      assertEquals(frame("message", "c", "one"), texts(subscriber.read()));
    }
  }

  @Test
  void slowSubscriber_pastTheHardOutputLimit_isDisconnected() throws IOException {
    ServerConfig config =
        TestServers.memoryOnly().pubsubOutputLimit(new OutputBufferLimit(1 << 20, 0, 0)).build();
    byte[] payload = new byte[64 * 1024];
    try (CuckooServer server = CuckooServer.start(config);
        RespClient subscriber = new RespClient(server.port());
        RespClient publisher = new RespClient(server.port())) {
      subscriber.send("SUBSCRIBE", "c");
      subscriber.read();
      // the subscriber reads nothing: 64 MiB cannot all sit in socket buffers and 1 MiB of queue
      long receivers = 1;
      int published = 0;
      while (receivers == 1 && published < 1024) {
        receivers = (Long) publisher.call("PUBLISH", "c", payload);
        published++;
      }
      assertEquals(0L, receivers, "the subscriber was dropped after " + published + " messages");
      assertTrue(published > 16, "what fits in 1 MiB of queue was sent first: " + published);
      assertTrue(subscriber.closedByServerAfterReadingAll());
      assertEquals("0", publisher.infoField("pubsub_clients"));
      assertEquals(0L, publisher.call("PUBLISH", "c", "gone"));
    }
  }

  @Test
  void jedisSubscriber_receivesWhatAnotherClientPublishes() throws Exception {
    try (CuckooServer server = TestServers.start();
        redis.clients.jedis.Jedis listener =
            new redis.clients.jedis.Jedis("127.0.0.1", server.port());
        redis.clients.jedis.Jedis publisher =
            new redis.clients.jedis.Jedis("127.0.0.1", server.port())) {
      List<String> received = new java.util.concurrent.CopyOnWriteArrayList<>();
      java.util.concurrent.CountDownLatch subscribed = new java.util.concurrent.CountDownLatch(1);
      redis.clients.jedis.JedisPubSub handler =
          new redis.clients.jedis.JedisPubSub() {
            @Override
            public void onSubscribe(String channel, int count) {
              subscribed.countDown();
            }

            @Override
            public void onMessage(String channel, String message) {
              received.add(channel + "=" + message);
              unsubscribe();
            }
          };
      Thread thread = new Thread(() -> listener.subscribe(handler, "jedis-channel"));
      thread.start();
      assertTrue(subscribed.await(10, java.util.concurrent.TimeUnit.SECONDS));
      assertEquals(1L, publisher.publish("jedis-channel", "hi"));
      thread.join(10_000);
      assertEquals(List.of("jedis-channel=hi"), received);
      assertEquals(Map.of("jedis-channel", 0L), publisher.pubsubNumSub("jedis-channel"));
    }
  }

  @Test
  void idleTimeout_sparesSubscribers_closesIdleNormalClients() throws Exception {
    ServerConfig config = TestServers.memoryOnly().timeoutSeconds(1).build();
    try (CuckooServer server = CuckooServer.start(config);
        RespClient subscriber = new RespClient(server.port());
        RespClient idle = new RespClient(server.port())) {
      subscriber.send("SUBSCRIBE", "c");
      subscriber.read();
      assertEquals(new Simple("PONG"), idle.call("PING"));
      Thread.sleep(2500);
      assertTrue(idle.closedByServer());
      try (RespClient publisher = new RespClient(server.port())) {
        assertEquals(1L, publisher.call("PUBLISH", "c", "still here"));
      }
      assertEquals(frame("message", "c", "still here"), texts(subscriber.read()));
    }
  }

  @Test
  void lettuceResp3Subscriber_receivesPushedMessages() throws Exception {
    try (CuckooServer server = TestServers.start()) {
      io.lettuce.core.RedisClient client =
          io.lettuce.core.RedisClient.create("redis://127.0.0.1:" + server.port());
      try (io.lettuce.core.pubsub.StatefulRedisPubSubConnection<String, String> subscriber =
              client.connectPubSub();
          io.lettuce.core.api.StatefulRedisConnection<String, String> publisher =
              client.connect()) {
        java.util.concurrent.BlockingQueue<String> received =
            new java.util.concurrent.LinkedBlockingQueue<>();
        subscriber.addListener(
            new io.lettuce.core.pubsub.RedisPubSubAdapter<>() {
              @Override
              public void message(String channel, String message) {
                received.add(channel + "=" + message);
              }

              @Override
              public void message(String pattern, String channel, String message) {
                received.add(pattern + ":" + channel + "=" + message);
              }
            });
        subscriber.sync().subscribe("lettuce");
        subscriber.sync().psubscribe("lett*");
        assertEquals("PONG", subscriber.sync().ping(), "a RESP3 subscriber runs any command");
        assertTrue(
            publisher.sync().clientList().contains(" flags=P db=0 sub=1 psub=1 "),
            "the subscriber's line");
        assertTrue(publisher.sync().clientList().contains(" resp=3 "), "Lettuce speaks RESP3");
        assertEquals(2L, publisher.sync().publish("lettuce", "hi"));
        Set<String> got =
            Set.of(
                received.poll(10, java.util.concurrent.TimeUnit.SECONDS),
                received.poll(10, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(Set.of("lettuce=hi", "lett*:lettuce=hi"), got);
        assertEquals(Map.of("lettuce", 1L), publisher.sync().pubsubNumsub("lettuce"));
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  @Test
  void publishedFromOtherConnections_precedeTheSubscribersNextReply_everyTime() throws IOException {
    // publishers on several connections (so on other event loops than the subscriber's): each
    // message was acknowledged to its publisher before the subscriber sent PING, so, as in Redis,
    // it must reach the subscriber before PING's reply
    int rounds = 2000;
    try (CuckooServer server = TestServers.start();
        RespClient subscriber = new RespClient(server.port())) {
      subscriber.send("SUBSCRIBE", "c");
      subscriber.read();
      List<RespClient> publishers = new ArrayList<>();
      try {
        for (int i = 0; i < 4; i++) {
          publishers.add(new RespClient(server.port()));
        }
        for (int i = 0; i < rounds; i++) {
          assertEquals(1L, publishers.get(i % 4).call("PUBLISH", "c", "m" + i));
          subscriber.send("PING");
          assertEquals(frame("message", "c", "m" + i), texts(subscriber.read()), "round " + i);
          assertEquals(frame("pong", ""), texts(subscriber.read()), "round " + i);
        }
      } finally {
        for (RespClient publisher : publishers) {
          publisher.close();
        }
      }
    }
  }
}
