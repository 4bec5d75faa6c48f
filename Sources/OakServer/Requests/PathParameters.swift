import Foundation
import Hummingbird
import OakModels

extension RequestContext {
    /// A path parameter, percent-decoded. A NUL character (`%00`) answers 400: SQLite would read the text
    /// only up to it, so `alba%00zzz` could reach `alba`.
    func pathParameter(_ name: String) throws -> String {
        try Self.decodedPathParameter(try parameters.require(name), name: name)
    }

    /// A path parameter's text (`raw`, as in the request target) percent-decoded; 400 naming it for a NUL.
    static func decodedPathParameter(_ raw: String, name: String) throws -> String {
        let decoded = raw.percentDecoded
        // A byte scan: Foundation's substring search is slow on every request.
        if decoded.utf8.contains(0) { throw OakError.invalid(name, "must not contain NUL characters") }
        return decoded
    }

    /// An integer path parameter; anything else answers 400.
    func pathInt(_ name: String) throws -> Int {
        guard let value = Int(try pathParameter(name)) else { throw OakError.invalid(name, "must be an integer") }
        return value
    }
}

extension String {
    /// The text percent-decoded (as is when it is not valid percent-encoding). Only text holding a `%` goes
    /// through Foundation's decoding, which is slow on every request.
    var percentDecoded: String {
        utf8.contains(UInt8(ascii: "%")) ? removingPercentEncoding ?? self : self
    }
}
