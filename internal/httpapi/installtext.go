package httpapi

import "github.com/skygate/skygate"

// installText is the wording of the hosted install page in one language.
type installText struct {
	Title, Plan, Status                    string
	IOS, Android, AndroidHow               string
	QR, QRHint                             string
	Manual, SMDP, MatchingID               string
	Installed, Downloaded, Expired, Cancel string
	Deleted                                string
	NotFoundTitle, NotFound                string
	TooManyTitle, TooMany                  string
	// Statuses names each skygate.ESIMStatus for the traveller.
	Statuses map[skygate.ESIMStatus]string
}

// installTexts holds the page's wording in every skygate.Languages; a test checks that
// each is complete.
var installTexts = map[string]*installText{
	skygate.LangEN: {
		Title: "Install your eSIM", Plan: "Plan", Status: "Status",
		IOS: "Install on iPhone", Android: "Install on Android",
		QR:         "Scan this QR code",
		QRHint:     "From another phone: open the eSIM settings and choose to add an eSIM with a QR code.",
		Manual:     "Or enter the details manually",
		SMDP:       "SM-DP+ address",
		MatchingID: "Activation code",
		Installed:  "This eSIM is already installed on a device.",
		Downloaded: "This eSIM was already downloaded to a device.",
		Expired:    "This eSIM has expired.",
		Cancel:     "This eSIM was canceled and can no longer be installed.",
		Deleted:    "This eSIM is no longer available on any device. Contact the seller.",
		AndroidHow: "Settings → Network & internet → SIMs → Add eSIM → enter the code manually, then type or paste this code:",

		NotFoundTitle: "Link not found",
		NotFound:      "This install link is not valid. Ask whoever sent it to you for a new one.",
		TooManyTitle:  "Too many requests",
		TooMany:       "Please wait a moment and try again.",
		Statuses: map[skygate.ESIMStatus]string{
			skygate.ESIMAssigned: "Ready to install", skygate.ESIMInstalled: "Installed", skygate.ESIMActive: "Active",
			skygate.ESIMDepleted: "Data used up", skygate.ESIMExpired: "Expired", skygate.ESIMCanceled: "Canceled",
		},
	},
	skygate.LangRU: {
		Title: "Установите eSIM", Plan: "Тариф", Status: "Статус",
		IOS: "Установить на iPhone", Android: "Установить на Android",
		QR:         "Отсканируйте QR-код",
		QRHint:     "С другого телефона: откройте настройки eSIM и выберите добавление eSIM по QR-коду.",
		Manual:     "Или введите данные вручную",
		SMDP:       "Адрес SM-DP+",
		MatchingID: "Код активации",
		Installed:  "Эта eSIM уже установлена на устройство.",
		Downloaded: "Эта eSIM уже загружена на устройство.",
		Expired:    "Срок действия этой eSIM истёк.",
		Cancel:     "Эта eSIM отменена, её больше нельзя установить.",
		Deleted:    "Эта eSIM больше недоступна ни на одном устройстве. Обратитесь к продавцу.",
		AndroidHow: "Настройки → Сеть и интернет → SIM-карты → Добавить eSIM → ввести код вручную, затем введите или вставьте этот код:",

		NotFoundTitle: "Ссылка не найдена",
		NotFound:      "Эта ссылка для установки недействительна. Попросите отправителя прислать новую.",
		TooManyTitle:  "Слишком много запросов",
		TooMany:       "Подождите немного и попробуйте снова.",
		Statuses: map[skygate.ESIMStatus]string{
			skygate.ESIMAssigned: "Готова к установке", skygate.ESIMInstalled: "Установлена", skygate.ESIMActive: "Активна",
			skygate.ESIMDepleted: "Трафик исчерпан", skygate.ESIMExpired: "Истекла", skygate.ESIMCanceled: "Отменена",
		},
	},
	skygate.LangUZ: {
		Title: "eSIMʼni oʻrnating", Plan: "Tarif", Status: "Holat",
		IOS: "iPhoneʼga oʻrnatish", Android: "Androidʼga oʻrnatish",
		QR:         "QR kodni skanerlang",
		QRHint:     "Boshqa telefondan: eSIM sozlamalarini oching va QR kod orqali eSIM qoʻshishni tanlang.",
		Manual:     "Yoki maʼlumotlarni qoʻlda kiriting",
		SMDP:       "SM-DP+ manzili",
		MatchingID: "Faollashtirish kodi",
		Installed:  "Bu eSIM allaqachon qurilmaga oʻrnatilgan.",
		Downloaded: "Bu eSIM allaqachon qurilmaga yuklab olingan.",
		Expired:    "Bu eSIM muddati tugagan.",
		Cancel:     "Bu eSIM bekor qilingan va endi oʻrnatib boʻlmaydi.",
		Deleted:    "Bu eSIM endi hech bir qurilmada mavjud emas. Sotuvchiga murojaat qiling.",
		AndroidHow: "Sozlamalar → Tarmoq va internet → SIM-kartalar → eSIM qoʻshish → kodni qoʻlda kiritish, soʻng ushbu kodni yozing yoki joylang:",

		NotFoundTitle: "Havola topilmadi",
		NotFound:      "Bu oʻrnatish havolasi yaroqsiz. Uni yuborgan kishidan yangisini soʻrang.",
		TooManyTitle:  "Soʻrovlar juda koʻp",
		TooMany:       "Biroz kuting va qayta urinib koʻring.",
		Statuses: map[skygate.ESIMStatus]string{
			skygate.ESIMAssigned: "Oʻrnatishga tayyor", skygate.ESIMInstalled: "Oʻrnatilgan", skygate.ESIMActive: "Faol",
			skygate.ESIMDepleted: "Trafik tugagan", skygate.ESIMExpired: "Muddati tugagan", skygate.ESIMCanceled: "Bekor qilingan",
		},
	},
	skygate.LangKK: {
		Title: "eSIM орнатыңыз", Plan: "Тариф", Status: "Күйі",
		IOS: "iPhone-ға орнату", Android: "Android-қа орнату",
		QR:         "QR кодын сканерлеңіз",
		QRHint:     "Басқа телефоннан: eSIM параметрлерін ашып, QR код арқылы eSIM қосуды таңдаңыз.",
		Manual:     "Немесе деректерді қолмен енгізіңіз",
		SMDP:       "SM-DP+ мекенжайы",
		MatchingID: "Белсендіру коды",
		Installed:  "Бұл eSIM құрылғыға орнатылып қойған.",
		Downloaded: "Бұл eSIM құрылғыға жүктеліп қойған.",
		Expired:    "Бұл eSIM мерзімі аяқталды.",
		Cancel:     "Бұл eSIM-нің күші жойылды, оны енді орнату мүмкін емес.",
		Deleted:    "Бұл eSIM енді ешбір құрылғыда қолжетімді емес. Сатушыға хабарласыңыз.",
		AndroidHow: "Параметрлер → Желі және интернет → SIM карталары → eSIM қосу → кодты қолмен енгізу, содан кейін осы кодты теріңіз немесе қойыңыз:",

		NotFoundTitle: "Сілтеме табылмады",
		NotFound:      "Бұл орнату сілтемесі жарамсыз. Оны жіберген адамнан жаңасын сұраңыз.",
		TooManyTitle:  "Сұраулар тым көп",
		TooMany:       "Біраз күтіп, қайталап көріңіз.",
		Statuses: map[skygate.ESIMStatus]string{
			skygate.ESIMAssigned: "Орнатуға дайын", skygate.ESIMInstalled: "Орнатылған", skygate.ESIMActive: "Белсенді",
			skygate.ESIMDepleted: "Трафик таусылды", skygate.ESIMExpired: "Мерзімі өтті", skygate.ESIMCanceled: "Күші жойылды",
		},
	},
}

// stateMessage is the sentence the page shows instead of the install instructions of
// an eSIM that can no longer be installed: canceled or expired first; then a deleted
// profile is gone from every device; an Assigned eSIM whose profile was only
// downloaded is downloaded; any other profile (installed, enabled, disabled) is on a
// device.
func (t *installText) stateMessage(e *skygate.ESIM) string {
	switch {
	case e.Status == skygate.ESIMCanceled:
		return t.Cancel
	case e.Status == skygate.ESIMExpired:
		return t.Expired
	case e.ProfileState == skygate.ProfileDeleted:
		return t.Deleted
	case e.Status == skygate.ESIMAssigned && e.ProfileState == skygate.ProfileDownloaded:
		return t.Downloaded
	default:
		return t.Installed
	}
}
