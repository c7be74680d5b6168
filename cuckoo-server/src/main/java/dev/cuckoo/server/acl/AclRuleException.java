package dev.cuckoo.server.acl;

/**
 * A rule ACL SETUSER, a {@code user} line or the ACL file cannot apply; the message is Redis's
 * description of the error ({@code ACLSetUserStringError}), e.g. "Syntax error".
 */
public final class AclRuleException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Redis's text for an unknown command or category (errno ENOENT). */
  static final String UNKNOWN = "Unknown command or category name in ACL";

  /** Redis's text for a rule it cannot read (errno EINVAL). */
  static final String SYNTAX = "Syntax error";

  /** Redis's text for a key pattern after allkeys (errno EEXIST). */
  static final String AFTER_ALLKEYS =
      "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have"
          + " any effect. Try 'resetkeys' to start with an empty list of patterns";

  /** Redis's text for a channel pattern after allchannels (errno EISDIR). */
  static final String AFTER_ALLCHANNELS =
      "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not"
          + " have any effect. Try 'resetchannels' to start with an empty list of channels";

  /** Redis's text for removing a password the user does not have (errno ENODEV). */
  static final String NO_SUCH_PASSWORD =
      "The password you are trying to remove from the user does not exist";

  /** Redis's text for a hash that is not 64 lower-case hex digits (errno EBADMSG). */
  static final String BAD_HASH =
      "The password hash must be exactly 64 characters and contain only lowercase hexadecimal"
          + " characters";

  /** Redis's text for a user defined twice in config files (errno EALREADY). */
  static final String DUPLICATE_USER =
      "Duplicate user found. A user can only be defined once in config files";

  /** Redis's text for {@code +container|sub|arg} (errno ECHILD). */
  static final String FIRST_ARG_OF_SUBCOMMAND =
      "Allowing first-arg of a subcommand is not supported";

  private final boolean unknownName;

  AclRuleException(String reason) {
    super(reason);
    this.unknownName = reason.equals(UNKNOWN);
  }

  /** Returns true if the rule named an unknown command or category (Redis's ENOENT). */
  boolean unknownName() {
    return unknownName;
  }
}
