import Foundation
import OakModels

extension OakClient {
    /// The body of a note create or update.
    private struct NoteBody: Encodable {
        var id: String?
        var scientificName: String?
        var sourceId: Int?
        var fields: NoteFields
    }

    /// `GET /api/v1/notes`: the notes of one source (personal observations unless told), optionally of one species.
    public func notes(species: String? = nil, sourceId: Int? = nil) async throws(OakClientError) -> [Note] {
        try await call(.listNotes, query: ["species": species, "sourceId": sourceId.map { String($0) }])
    }

    /// `GET /api/v1/notes/{id}`.
    public func note(id: UUID) async throws(OakClientError) -> Note {
        try await call(.note, [id.wireString])
    }

    /// `POST /api/v1/notes`: creates a note, with the given id if one is given.
    public func createNote(id: UUID? = nil, scientificName: String, sourceId: Int? = nil, fields: NoteFields) async throws(OakClientError) -> Note {
        let body = NoteBody(id: id?.wireString, scientificName: scientificName, sourceId: sourceId, fields: fields)
        return try await call(.createNote, body: body)
    }

    /// `PUT /api/v1/notes/{id}`: replaces a note's fields; with `expectedVersion` only if the note is still at it (else 412).
    public func updateNote(id: UUID, fields: NoteFields, expectedVersion: Int64? = nil) async throws(OakClientError) -> Note {
        try await call(.updateNote, [id.wireString], body: NoteBody(fields: fields), headers: ifMatch(expectedVersion))
    }

    /// `DELETE /api/v1/notes/{id}`; with `expectedVersion` only if the note is still at it (else 412).
    public func deleteNote(id: UUID, expectedVersion: Int64? = nil) async throws(OakClientError) {
        _ = try await send(.deleteNote, [id.wireString], headers: ifMatch(expectedVersion))
    }

    private func ifMatch(_ version: Int64?) -> [String: String] {
        version.map { ["If-Match": "\"\($0)\""] } ?? [:]
    }
}

extension OakClient {
    /// `GET /api/v1/sync/pull`: changes after `cursor` (everything without one). A cursor the server no
    /// longer knows fails with status 410; pull again without a cursor.
    public func pull(since cursor: String?, limit: Int? = nil, entities: [SyncEntity]? = nil) async throws(OakClientError) -> PullResponse {
        let query: [String: String?] = [
            "since": cursor, "limit": limit.map { String($0) }, "entities": entities?.map(\.rawValue).joined(separator: ","),
        ]
        return try await call(.pull, query: query)
    }

    /// `POST /api/v1/sync/push`: one result per change, in order. Re-sending a change returns the same result.
    /// `cursor`, the device's pull cursor, lets the server refuse (410) base versions from another history.
    public func push(_ changes: [PushChange], cursor: String? = nil) async throws(OakClientError) -> PushResponse {
        try await call(.push, body: PushRequest(changes: changes, cursor: cursor))
    }
}
