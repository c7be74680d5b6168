package dev.cuckoo.server.command;

import dev.cuckoo.server.persist.Transaction;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.Kind;
import dev.cuckoo.server.pubsub.PubSub;
import dev.cuckoo.server.pubsub.Subscriber;
import java.util.List;

/**
 * SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, SSUBSCRIBE, SUNSUBSCRIBE, PUBLISH, SPUBLISH and
 * PUBSUB, answered as Redis's {@code pubsub.c}: every (un)subscription is confirmed by its own
 * frame (a RESP2 array or a RESP3 push) carrying the connection's subscription count after it.
 */
final class PubSubCommands {
  private final PubSub pubSub;
  private final ServerContext context;

  /**
   * Creates the commands over the server's subscription registry; messages published go to the
   * replicas through {@code context}'s write stream.
   */
  PubSubCommands(PubSub pubSub, ServerContext context) {
    this.pubSub = pubSub;
    this.context = context;
  }

  private static void confirm(Session session, String word, byte[] name, int count) {
    Reply reply = session.reply();
    reply.push(3);
    reply.bulk(word);
    if (name == null) {
      reply.nullValue();
    } else {
      reply.bulk(name);
    }
    reply.integer(count);
  }

  /** (P|S)SUBSCRIBE name [name ...]: the kind's subscription to each name, confirmed. */
  void subscribe(Session session, byte[][] args, Kind kind) {
    Subscriber subscriber = session.subscriber();
    for (int i = 1; i < args.length; i++) {
      pubSub.subscribe(subscriber, kind, args[i]);
      confirm(session, kind.subscribeWord(), args[i], subscriber.confirmationCount(kind));
    }
  }

  /**
   * (P|S)UNSUBSCRIBE [name ...]: leaves the names given, or every name of the kind when none is
   * given; a connection with none gets one confirmation with a null name, as Redis's {@code
   * pubsubUnsubscribeAllChannels}.
   */
  void unsubscribe(Session session, byte[][] args, Kind kind) {
    Subscriber subscriber = session.subscriber();
    if (args.length == 1) {
      List<byte[]> left = subscriber.subscribed(kind);
      if (left.isEmpty()) {
        confirm(session, kind.unsubscribeWord(), null, subscriber.confirmationCount(kind));
      }
      for (byte[] name : left) {
        pubSub.unsubscribe(subscriber, kind, name);
        confirm(session, kind.unsubscribeWord(), name, subscriber.confirmationCount(kind));
      }
      return;
    }
    for (int i = 1; i < args.length; i++) {
      pubSub.unsubscribe(subscriber, kind, args[i]);
      confirm(session, kind.unsubscribeWord(), args[i], subscriber.confirmationCount(kind));
    }
  }

  /** PUBLISH channel message: the number of receivers (channel and pattern subscriptions). */
  void publish(Session session, Request request) {
    byte[][] args = request.args();
    session.reply().integer(pubSub.publish(args[1], args[2], false));
    propagate(session, args);
  }

  /** SPUBLISH shardchannel message: the number of shard-channel subscribers that received it. */
  void spublish(Session session, Request request) {
    byte[][] args = request.args();
    session.reply().integer(pubSub.publish(args[1], args[2], true));
    propagate(session, args);
  }

  /**
   * Sends a published message to the replicas: at once, or inside EXEC in its place among the
   * transaction's writes (as Redis propagates it within the MULTI … EXEC block).
   */
  private void propagate(Session session, byte[][] args) {
    Transaction transaction = session.transaction();
    if (transaction != null) {
      transaction.addMessage(session.db(), args);
    } else {
      context.writeStream().propagate(args);
    }
  }

  private static void syntaxError(Session session, byte[][] args) {

    session
        .reply()
        .error(
            "ERR unknown subcommand or wrong number of arguments for '"
                + Args.text(args[1])
                + "'. Try PUBSUB HELP.");
  }

  /** PUBSUB CHANNELS [pattern] and PUBSUB SHARDCHANNELS [pattern]. */
  void channels(Session session, Request request) {
    byte[][] args = request.args();
    if (args.length > 3) {
      syntaxError(session, args);
      return;
    }
    Kind kind = Args.lower(args[1]).equals("channels") ? Kind.CHANNEL : Kind.SHARD;
    List<byte[]> names = pubSub.activeChannels(kind, args.length == 3 ? args[2] : null);
    Reply reply = session.reply();
    reply.array(names.size());
    for (byte[] name : names) {
      reply.bulk(name);
    }
  }

  /** PUBSUB NUMSUB [channel ...] and PUBSUB SHARDNUMSUB: channel, count, ... (an array). */
  void numsub(Session session, Request request) {
    byte[][] args = request.args();
    Kind kind = Args.lower(args[1]).equals("numsub") ? Kind.CHANNEL : Kind.SHARD;
    Reply reply = session.reply();
    reply.array((args.length - 2) * 2);
    for (int i = 2; i < args.length; i++) {
      reply.bulk(args[i]);
      reply.integer(pubSub.subscriberCount(kind, args[i]));
    }
  }

  /** PUBSUB NUMPAT: the number of patterns subscribed by any connection. */
  void numpat(Session session, Request request) {
    session.reply().integer(pubSub.activeCount(Kind.PATTERN));
  }
}
