package dev.cuckoo.server.acl;

/**
 * Why a request was refused, and where: the reason and the argument position of the key or channel
 * refused (0 for the command itself).
 *
 * @param reason what was refused
 * @param position the argument index of the key or channel, 0 for the command
 */
public record Denial(Reason reason, int position) {
  /**
   * What a user may not do, in Redis's order of relevance (ACL_DENIED_CMD &lt; KEY &lt; AUTH &lt;
   * CHANNEL).
   */
  public enum Reason {
    /** The command (or subcommand) is not allowed. */
    COMMAND("command"),
    /** A key is not allowed with the access the command needs. */
    KEY("key"),
    /** AUTH or HELLO gave a wrong user or password. */
    AUTH("auth"),
    /** A Pub/Sub channel is not allowed. */
    CHANNEL("channel");

    private final String word;

    Reason(String word) {
      this.word = word;
    }

    /** Returns ACL LOG's word for the reason: command, key, auth or channel. */
    public String word() {
      return word;
    }
  }
}
