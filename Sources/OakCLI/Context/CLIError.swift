import Foundation
import OakClient
import OakModels

/// A failure a command reports in one line on stderr, with a documented exit code.
public enum CLIError: Error, Equatable, CustomStringConvertible {
    /// A command used wrongly (bad option values, missing database without --create). Exit 64.
    case usage(String)
    /// The species, taxon, source or note named does not exist. Exit 2.
    case notFound(String)
    /// The change conflicts with what exists (a duplicate, a delete blocked by dependants). Exit 3.
    case conflict(String)
    /// The data given is invalid (a field, a file). Exit 4.
    case invalid(String)
    /// The server cannot be reached. Exit 5.
    case network(String)
    /// The key is missing, wrong, or lacks the ability. Exit 6.
    case auth(String)
    /// Anything else. Exit 1.
    case failure(String)

    public var exitCode: Int32 {
        switch self {
        case .failure: 1
        case .notFound: 2
        case .conflict: 3
        case .invalid: 4
        case .network: 5
        case .auth: 6
        case .usage: 64
        }
    }

    public var description: String {
        switch self {
        case .usage(let message), .notFound(let message), .conflict(let message), .invalid(let message),
            .network(let message), .auth(let message), .failure(let message):
            message
        }
    }

    /// The CLI error for any error a command body throws: store errors, client errors, or already one.
    public init(_ error: any Error) {
        switch error {
        case let error as CLIError:
            self = error
        case let error as OakError:
            self = CLIError(error)
        case let error as OakClientError:
            switch error {
            case .server(_, let envelope, _): self = CLIError(envelope)
            case .transport(let underlying): self = .network("Cannot reach the server: \(underlying)")
            default: self = .failure("The server's answer could not be read: \(error)")
            }
        default:
            self = .failure("\(error)")
        }
    }

    private init(_ error: OakError) {
        let message = error.summary
        switch error.code {
        case .notFound: self = .notFound(message)
        case .conflict, .preconditionFailed, .gone: self = .conflict(message)
        case .validationError, .payloadTooLarge, .unsupportedMediaType: self = .invalid(message)
        case .unauthorized, .forbidden: self = .auth(message)
        case .serviceUnavailable, .rateLimited, .requestTimeout: self = .network(message)
        default: self = .failure(message)
        }
    }
}
