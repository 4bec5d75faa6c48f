import Foundation
import Hummingbird
import OakModels
import OakStore

/// `/api/v1/notes`: field notes, the app's view of species-source rows.
struct NotesController {
    let repository: any NoteRepository

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.listNotes, use: list)
        group.on(.createNote, use: create)
        group.on(.note, use: get)
        group.on(.updateNote, use: update)
        group.on(.patchNote, use: update)
        group.on(.deleteNote, use: delete)
    }

    @Sendable func list(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<[Note]> {
        let query = request.queryValues(of: .listNotes)
        // Both spellings are read (a malformed one is a 400 even beside a valid other); camelCase wins.
        let (camelCase, snakeCase) = (try query.int("sourceId"), try query.int("source_id"))
        let sourceId = camelCase ?? snakeCase ?? Source.personalObservationID
        return JSONResponse(body: try await repository.notes(species: query.string("species"), sourceId: sourceId))
    }

    @Sendable func get(_ request: Request, context: OakRequestContext) async throws -> Response {
        let note = try await repository.note(id: try noteID(context))
        var response = try JSONResponse(body: note).response(from: request, context: context)
        response.headers[.eTag] = note.etag
        return response
    }

    @Sendable func create(_ request: Request, context: OakRequestContext) async throws -> Response {
        let note = try await repository.createNote(try await request.decodeJSON(NoteInput.self))
        var response = try JSONResponse(status: .created, body: note).response(from: request, context: context)
        response.headers[.eTag] = note.etag
        response.headers[.location] = APIRoute.note.path(note.id.wireString)
        return response
    }

    @Sendable func update(_ request: Request, context: OakRequestContext) async throws -> Response {
        let id = try noteID(context)
        let input = try await request.decodeJSON(NoteInput.self)
        let note = try await repository.updateNote(id: id, with: input, expectedVersion: try expectedVersion(request))
        var response = try JSONResponse(body: note).response(from: request, context: context)
        response.headers[.eTag] = note.etag
        return response
    }

    @Sendable func delete(_ request: Request, context: OakRequestContext) async throws -> HTTPResponse.Status {
        try await repository.deleteNote(id: try noteID(context), expectedVersion: try expectedVersion(request))
        return .noContent
    }

    private func noteID(_ context: OakRequestContext) throws -> UUID {
        guard let id = UUID(wireString: try context.pathParameter("id")) else { throw OakError.invalid("id", "must be a UUID") }
        return id
    }

    /// The version an `If-Match` header names (`*` matches any); a header of another form is a 400.
    private func expectedVersion(_ request: Request) throws -> Int64? {
        guard let header = request.headers[.ifMatch].map({ String($0.trimmingWhitespace) }), header != "*" else { return nil }
        let tag = header.hasPrefix("W/") ? header.dropFirst(2) : Substring(header)
        let quoted = tag.count >= 2 && tag.hasPrefix("\"") && tag.hasSuffix("\"")
        let digits = quoted ? tag.dropFirst().dropLast() : tag
        guard (1...18).contains(digits.count), digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let version = Int64(digits) else {
            throw OakError.invalid("If-Match", "must be the note's ETag as GET returns it (\"<version>\") or *")
        }
        return version
    }
}
