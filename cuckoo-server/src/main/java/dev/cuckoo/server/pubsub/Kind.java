package dev.cuckoo.server.pubsub;

/**
 * A kind of subscription, with the words of its confirmations and messages (Redis's {@code
 * pubsubtype}).
 */
public enum Kind {
  /** SUBSCRIBE: an exact channel name. */
  CHANNEL("subscribe", "unsubscribe", "message"),
  /** PSUBSCRIBE: a glob pattern over channel names. */
  PATTERN("psubscribe", "punsubscribe", "pmessage"),
  /** SSUBSCRIBE: a shard channel (one shard here: the whole server). */
  SHARD("ssubscribe", "sunsubscribe", "smessage");

  private final String subscribeWord;
  private final String unsubscribeWord;
  private final String messageWord;

  Kind(String subscribeWord, String unsubscribeWord, String messageWord) {
    this.subscribeWord = subscribeWord;
    this.unsubscribeWord = unsubscribeWord;
    this.messageWord = messageWord;
  }

  /** Returns the first word of a subscribe confirmation, e.g. "psubscribe". */
  public String subscribeWord() {
    return subscribeWord;
  }

  /** Returns the first word of an unsubscribe confirmation, e.g. "punsubscribe". */
  public String unsubscribeWord() {
    return unsubscribeWord;
  }

  /** Returns the first word of a message of this kind, e.g. "pmessage". */
  public String messageWord() {
    return messageWord;
  }
}
