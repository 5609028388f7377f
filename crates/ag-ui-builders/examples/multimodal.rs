//! A user message mixing text, an image (URL), audio (inline bytes) and a document held by
//! a provider.
//!
//! Run with `cargo run -p ag-ui-builders --example multimodal`.

use ag_ui_builders::content::{self, Parts};
use ag_ui_builders::user_message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let riff_header = b"RIFF\x24\x08\x00\x00WAVE";
    let message = user_message(
        "user-1",
        Parts::new()
            .text("Compare the chart with the recording and the report.")
            .image(content::url("https://example.com/chart.png").with_mime_type("image/png"))
            .audio(content::bytes(riff_header, "audio/wav"))
            .document(
                content::file("file-abc123")
                    .with_provider("openai")
                    .with_mime_type("application/pdf"),
            )
            // The kind follows the MIME type: this one becomes a video part.
            .media(content::url("https://example.com/clip.mp4").with_mime_type("video/mp4")),
    );
    println!("{}", serde_json::to_string_pretty(&message)?);
    println!("as text: {:?}", message.content.to_text());
    Ok(())
}
