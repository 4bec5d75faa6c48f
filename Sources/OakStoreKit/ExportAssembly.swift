import Crypto
import NIOCore
import OakModels

/// Collects the export's species objects into the document, in order, with where each lies and its digest,
/// and the document's strong ETag: a hash of its head and the species' digests in order, so of the data only.
package struct ExportAssembly {
    /// Where a species' object lies in the body, and the SHA-256 of its bytes.
    package struct Piece: Sendable {
        package var range: Range<Int>
        package var digest: [UInt8]
    }

    package private(set) var body: ByteBuffer
    package private(set) var pieces: [String: Piece] = [:]
    private var hasher = SHA256()

    /// Starts the document with `head` (everything before the first species), which the ETag covers too.
    package init(head: [UInt8], capacity: Int) {
        body = ByteBufferAllocator().buffer(capacity: capacity)
        body.writeBytes(head)
        hasher.update(data: head)
    }

    /// Appends a species' object; `digest` is the SHA-256 of its bytes.
    package mutating func append(_ name: String, _ object: some Sequence<UInt8>, digest: [UInt8]) {
        if !pieces.isEmpty { body.writeStaticString(",") }
        let start = body.writerIndex
        body.writeBytes(object)
        pieces[name] = Piece(range: start..<body.writerIndex, digest: digest)
        hasher.update(data: digest)
    }

    /// Appends a species' object just rendered.
    package mutating func append(_ name: String, rendered object: [UInt8]) {
        append(name, object, digest: Array(SHA256.hash(data: object)))
    }

    /// Closes the document: its body and ETag.
    package mutating func finish() -> (body: ByteBuffer, etag: String) {
        body.writeStaticString("]}")
        return (body, hasher.finalize().strongETag)
    }
}
