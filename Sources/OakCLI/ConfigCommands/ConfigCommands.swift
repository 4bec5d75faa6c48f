/// `oak config show|list|use|add`: the profiles in `~/.oak/config.yaml`; and `oak version`: this build's versions
/// and, with a server, the server's and whether this client is too old for it.
public enum ConfigCommands {}
