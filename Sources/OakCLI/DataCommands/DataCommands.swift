/// `oak stats`, `oak export`, `oak import`, `oak import-bulk`: the whole compendium, counted, written out or
/// loaded from a file.
public enum DataCommands {}
