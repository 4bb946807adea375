// @sparticuz/chromium unpacks its browser into the temp folder on first use and trusts any file
// it finds there, so two test files unpacking at once could launch a half-written executable.
// Unpacking once here, before the workers start, leaves every later call a lookup.
import chromium from '@sparticuz/chromium';

export default async function setup(): Promise<void> {
  await chromium.executablePath();
}
