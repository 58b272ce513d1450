//! `seal audit show` and `seal audit query disclosures`: entries selected through the query
//! index and read back from the entries themselves. Every value printed is the stored escaped
//! form (printable ASCII): nothing recorded reaches the terminal raw.

use seal::log::{log_text, LogEventType, LogRecord, LogValue};
use seal_log_sqlite::EntryFilter;

use crate::cli::AuditShowArgs;
use crate::failure::{quoted, Exit, Failure};
use crate::io::now;

/// Runs `seal audit show` (or, with `disclosures`, `seal audit query disclosures`).
pub fn run(args: &AuditShowArgs, disclosures: bool) -> Result<u8, Failure> {
    let log = super::open(&super::log_path(&args.log)?)?;
    let mut filter = EntryFilter::default();
    filter.since = args.since.as_deref().map(since).transpose()?;
    filter.kind = if disclosures {
        Some(LogEventType::ManifestVerified.name().to_owned())
    } else {
        args.kind.clone()
    };
    let stored = |text: &Option<String>| text.as_deref().map(|t| log_text(t).into_string());
    filter.session = stored(&args.session);
    filter.tool = stored(&args.tool);
    filter.decision = args.decision.clone();
    filter.by = stored(&args.rule);
    filter.limit = Some(args.limit);
    let entries = log
        .select(&filter)
        .map_err(|error| Failure::input(error.to_string()))?;
    for entry in entries {
        let record = LogRecord::from_bytes(&entry.record).map_err(|error| {
            Failure::input(format!(
                "entry {}: {error} (run `seal audit verify`)",
                entry.seq
            ))
        })?;
        if args.json {
            // Stored bytes: canonical JSON of printable ASCII.
            outln!("{}", String::from_utf8_lossy(&entry.record));
        } else {
            outln!("{}", line(&record));
        }
    }
    Ok(Exit::Ok.code())
}

/// One entry as a line: position, time (UTC), type, then each member.
pub fn line(record: &LogRecord) -> String {
    let event = record.event();
    let mut out = format!(
        "#{} {} {}",
        record.seq(),
        utc(record.time()),
        event.kind().name()
    );
    for (name, value) in event.members() {
        match value {
            LogValue::Text(text) => out.push_str(&format!(" {name}={text}")),
            LogValue::Digest(digest) => {
                let hex = digest.to_hex();
                out.push_str(&format!(" {name}={}", hex.get(..16).unwrap_or(&hex)));
            }
            LogValue::Choice(choice) => out.push_str(&format!(" {name}={choice}")),
            LogValue::Flag => out.push_str(&format!(" {name}")),
            LogValue::Files(files) => {
                for file in files {
                    out.push_str(&format!(" file={}:{}", file.path, file.lines));
                }
            }
        }
    }
    out
}

/// `--since`: seconds since the epoch, or an age (`30s`, `90m`, `24h`, `7d`) before now.
fn since(text: &str) -> Result<u64, Failure> {
    let bad = || {
        Failure::usage(format!(
            "`--since` wants seconds since 1970 or an age such as `24h`, not {}",
            quoted(text)
        ))
    };
    if let Ok(seconds) = text.parse::<u64>() {
        return Ok(seconds);
    }
    let split = text.len().checked_sub(1).ok_or_else(bad)?;
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().map_err(|_| bad())?;
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => return Err(bad()),
    };
    let age = number.checked_mul(scale).ok_or_else(bad)?;
    Ok(now(None)?.0.saturating_sub(age))
}

/// `YYYY-MM-DDTHH:MM:SSZ` of Unix seconds (proleptic Gregorian calendar, UTC).
pub fn utc(seconds: u64) -> String {
    let days = seconds / 86_400;
    let rest = seconds % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3_600,
        rest % 3_600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::utc;

    #[test]
    fn utc_is_the_calendar_date() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_765_000_000), "2025-12-06T05:46:40Z");
        assert_eq!(utc(4_102_444_799), "2099-12-31T23:59:59Z");
    }
}
