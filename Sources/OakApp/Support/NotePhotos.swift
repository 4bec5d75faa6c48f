import Foundation

/// A note's photos, kept on the device and never synced: JPEG files in one folder (`Documents/Photos` on a phone,
/// the original app's folder), each named after its note (`<note id>_<photo id>.jpg`, as the original app named
/// them), so a note's photos are the files whose names start with its id.
public struct NotePhotos: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// The note's photos, oldest first.
    public func photos(of noteID: UUID) -> [URL] {
        let prefix = Self.prefix(noteID)
        return Self.oldestFirst(files().filter { $0.lastPathComponent.hasPrefix(prefix) })
    }

    /// Every note's photos, oldest first, from one reading of the folder (a list shows many notes at once).
    public func byNote() -> [UUID: [URL]] {
        let grouped = Dictionary(grouping: files()) { UUID(uuidString: String($0.lastPathComponent.prefix { $0 != "_" })) }
        var byNote: [UUID: [URL]] = [:]
        for case (let noteID?, let photos) in grouped { byNote[noteID] = Self.oldestFirst(photos) }
        return byNote
    }

    private func files() -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).map { directory.appendingPathComponent($0) }
    }

    private static func oldestFirst(_ photos: [URL]) -> [URL] {
        photos.map { (created($0), $0) }.sorted { ($0.0, $0.1.lastPathComponent) < ($1.0, $1.1.lastPathComponent) }.map(\.1)
    }

    /// Keeps a photo (JPEG data) with the note; returns its file.
    @discardableResult
    public func add(_ jpeg: Data, to noteID: UUID) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("\(Self.prefix(noteID))\(UUID().uuidString).jpg")
        try jpeg.write(to: url, options: .atomic)
        return url
    }

    /// Removes one photo of a note (a file of this folder; any other is left alone).
    public func remove(_ photo: URL) throws {
        guard photo.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path else { return }
        try FileManager.default.removeItem(at: photo)
    }

    /// Removes every photo of a note (the note is gone for good).
    public func removeAll(of noteID: UUID) throws {
        for photo in photos(of: noteID) { try FileManager.default.removeItem(at: photo) }
    }

    /// Makes files the original app listed for a note (`photoFileNames`) photos of the note with `noteID` here:
    /// a file named after another note (the note was matched with one already on the device) takes this note's
    /// name. Files that are missing are skipped.
    public func adopt(_ fileNames: [String], for noteID: UUID) throws {
        let prefix = Self.prefix(noteID)
        for name in fileNames where !name.hasPrefix(prefix) && !name.contains("/") {
            let old = directory.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: old.path) else { continue }
            let rest = name.split(separator: "_", maxSplits: 1).last.map(String.init) ?? name
            try FileManager.default.moveItem(at: old, to: directory.appendingPathComponent(prefix + rest))
        }
    }

    private static func prefix(_ noteID: UUID) -> String {
        "\(noteID.uuidString)_"
    }

    private static func created(_ url: URL) -> Date {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes?[.creationDate] as? Date) ?? (attributes?[.modificationDate] as? Date) ?? .distantPast
    }
}
