//! The helpdesk-like tools, declared with `#[tool]`.

use toolsmith::{model, tool};

/// How fast support answers a ticket.
#[model]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Answered within five working days.
    Low,
    /// Answered within one working day.
    Normal,
    /// The customer is blocked; answered within two hours.
    Urgent,
}

/// A help-centre article.
#[model]
pub struct Article {
    /// Article id, e.g. "KB-112".
    pub id: String,
    /// Article title.
    pub title: String,
}

/// Searches the help-centre articles. Returns up to 5 articles, best match first, each with id and title.
#[tool(read_only)]
pub fn search_articles(
    /// Words to look for, e.g. "reset password".
    #[arg(min_length = 2, max_length = 200)]
    query: String,
) -> Vec<Article> {
    vec![Article {
        id: "KB-112".into(),
        title: format!("How to {query}"),
    }]
}

/// Opens a support ticket for a human agent. Returns the new ticket's id, e.g. "SUP-1042".
#[tool(writes, title = "Create ticket")]
pub fn create_ticket(
    /// One-line summary of the problem, e.g. "Cannot log in".
    #[arg(min_length = 3, max_length = 120)]
    subject: String,
    /// The full problem statement in the customer's words.
    #[arg(max_length = 4000)]
    body: String,
    /// How urgent the ticket is.
    priority: Priority,
) -> String {
    let _ = (subject, body, priority);
    "SUP-1042".into()
}

/// Looks up a support ticket. Returns its status (open, waiting or closed) and the last update.
#[tool(read_only)]
pub fn get_ticket_status(
    /// The ticket id, e.g. "SUP-1042".
    #[arg(pattern = "^SUP-[0-9]+$")]
    ticket_id: String,
) -> String {
    format!("{ticket_id}: open")
}
